"""The built wheel works outside the checkout: schemas, templates, site defaults and theme overrides travel in it.

The wheel (built once per session from the sdist, see conftest.py) is installed into a fresh venv outside the
checkout and driven from a temporary registry that has no mkdocs.yml, no site/ and no schemas of its own.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.package.conftest import REPO, run_ok


def _run(cmd: list[str], cwd: Path, env: dict):
    return run_ok(cmd, cwd, env)


@pytest.mark.slow
def test_installed_wheel_runs_the_whole_toolchain_outside_the_checkout(installed, tmp_path):
    bindir, env = installed.bindir, installed.env
    where = _run([str(bindir / "python"), "-c", "import skillyard; print(skillyard.__file__)"], tmp_path, env)
    assert not Path(where.stdout.strip()).resolve().is_relative_to(REPO), where.stdout
    assert Path(where.stdout.strip()).resolve().is_relative_to(bindir.parent.resolve())

    registry = tmp_path / "myreg"
    (registry / "skills").mkdir(parents=True)
    shutil.copytree(REPO / "skills" / "changelog-from-git", registry / "skills" / "changelog-from-git")
    (registry / "pyproject.toml").write_text(
        '[tool.skillyard]\nname = "myreg"\ndescription = "A registry made outside the checkout."\n'
        'homepage = "https://example.org/myreg/"\nrepository = "someone/myreg"\nskills_dir = "skills"\n',
        encoding="utf-8")
    skillyard, skill = str(bindir / "skillyard"), str(bindir / "skill")

    for tool in (skillyard, skill):
        version = _run([tool, "--version"], registry, env).stdout.split()
        assert version == [Path(tool).name, "0.1.0"]
    _run([skillyard, "validate"], registry, env)
    _run([skillyard, "build"], registry, env)
    assert json.loads((registry / "registry.json").read_text())["skills"][0]["name"] == "changelog-from-git"
    _run([skillyard, "site", "build", "--out", "_site"], registry, env)
    home = (registry / "_site" / "index.html").read_text(encoding="utf-8")
    assert "myreg" in home and "changelog-from-git" in home
    assert "sy-search" in home  # the packaged theme override rendered the search box
    assert "Content-Security-Policy" in home  # the packaged hook ran
    assert (registry / "_site" / "assets" / "search.js").is_file()
    assert (registry / "_site" / "skills" / "changelog-from-git" / "index.html").is_file()
    assert not (registry / "mkdocs.yml").exists() and not (registry / "site").exists()

    project = tmp_path / "project"
    project.mkdir()
    _run([skill, "install", str(registry / "skills" / "changelog-from-git"), "--target", "agents", "--project"],
         project, env)
    installed_md = list(project.rglob("changelog-from-git/SKILL.md"))
    assert installed_md, sorted(str(p.relative_to(project)) for p in project.rglob("*"))


def test_version_strings_agree():
    """`--version` reads the installed metadata (pyproject's) and an uninstalled run reads __version__: one number."""
    import tomllib

    import skillyard

    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["version"] == skillyard.__version__


def test_site_config_falls_back_to_the_packaged_default(tmp_path, monkeypatch):
    from skillyard.errors import SkillyardError
    from skillyard.site.builder import default_config, find_config

    monkeypatch.chdir(tmp_path)
    assert find_config(tmp_path, None) == default_config().resolve()
    assert default_config().is_file()
    own = tmp_path / "mkdocs.yml"
    own.write_text("site_name: mine\n", encoding="utf-8")
    assert find_config(tmp_path, None) == own.resolve()
    with pytest.raises(SkillyardError, match="--config .*not found"):
        find_config(tmp_path, tmp_path / "missing.yml")  # a named config is never silently replaced
