"""The registry's size limits and the client's install limits agree: with default settings, a skill a registry
accepts (`skillyard validate`, `external add`) is never refused by `skill install` or by the site's upstream fetch;
and the defaults admit what the ecosystem publishes (measured on ../shared/corpus when it is present)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillyard.client.config_keys import KEYS
from skillyard.format import tarball
from skillyard.format.policy import Policy
from skillyard.registry import external
from skillyard.site import upstream

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


def client_default(key: str) -> int:
    return KEYS[key].default


def test_registry_limits_fit_within_the_clients_install_limits():
    policy = Policy()
    assert policy.max_total_bytes <= client_default("install.max_total_bytes")
    assert policy.max_total_bytes <= client_default("install.max_download_bytes")  # an install downloads it all
    assert policy.max_file_bytes <= client_default("install.max_file_bytes")
    assert policy.max_files <= client_default("install.max_files")


def test_a_repository_add_can_read_the_site_can_read():
    assert external.TARBALL_MAX_BYTES <= upstream.MAX_TARBALL_BYTES
    assert external.TARBALL_MAX_BYTES <= tarball.MAX_TOTAL_BYTES


def test_the_largest_official_skill_fits():
    """Anthropic's canvas-design: 5.55 MB with its fonts (issue 32), refused by the old 5 MiB default."""
    assert Policy().max_total_bytes > 5_550_000 * 1.5


def test_every_corpus_skill_fits_the_defaults():
    if not CORPUS.is_dir():
        pytest.skip(f"{CORPUS} is absent (a user's clone): the real corpus is checked where ../shared exists")
    policy = Policy()
    over = []
    for inventory in sorted(CORPUS.rglob("INVENTORY.txt")):
        rows = [line.split("\t") for line in inventory.read_text().splitlines() if not line.startswith("#")]
        sizes = [int(cols[1]) for cols in rows if len(cols) >= 3 and cols[2] in ("file", "exec")]
        if sum(sizes) > policy.max_total_bytes or max(sizes, default=0) > policy.max_file_bytes \
                or len(sizes) > policy.max_files:
            over.append(str(inventory.parent.relative_to(CORPUS)))
    assert over == []
