"""One verdict: every path that judges a skill gives the same security findings for the same bytes under the same
reviewed exceptions (format/verdict.py). For each of the registry's own skills (skills/*/SKILL.md):

- `skillyard validate --json`: the report the PR bot renders and decides on (its artifact is this JSON);
- the site's skill page: the findings block `site.model.skill_view` shows from the committed registry.json;
- `skillyard external add/verify/bump`: `registry.external.check_folder` over the folder's bytes, with the skill's
  reviewed exceptions as the pointer's `registry.security_exceptions`;
- `skill install NAME` from the registry: `client.candidates.scan_entry` over the bytes, under the entry's
  exceptions (a refusal must be over findings validate calls errors);
- `skill validate`, the command every install refusal now advises.

Any disagreement names the skill, the path and the findings that differ."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from skillyard.client.candidates import scan_entry
from skillyard.client.config import Config
from skillyard.client.store import StagedFile
from skillyard.errors import SkillyardError
from skillyard.format.verdict import security_dicts
from skillyard.registry.external import check_folder

ROOT = Path(__file__).resolve().parents[1]
KEYS = ("rule", "severity", "file", "line", "field", "message", "allowed")


def _own_skills() -> list[Path]:
    return sorted(p.parent for p in (ROOT / "skills").glob("*/SKILL.md"))


def _key(findings) -> list[tuple]:
    """The compared form; the site view fills absent values with "" for its template, which counts as absent."""
    return [tuple(None if f.get(k) == "" else f.get(k) for k in KEYS) for f in security_dicts(findings)]


def _files(folder: Path) -> dict[str, tuple[bytes, bool]]:
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_file() and not any(part.startswith(".") or part == "__pycache__" for part in rel.split("/")):
            out[rel] = (path.read_bytes(), bool(path.stat().st_mode & 0o111))
    return out


def _validate(folders: list[Path]) -> dict[str, list[tuple]]:
    """`skillyard validate --json` over the folders, in this process: {folder name: its security findings}."""
    import contextlib
    import io

    from skillyard.cli.main import skillyard_main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(SystemExit):
        skillyard_main(["validate", "--root", str(ROOT), "--json", "--no-cache", *map(str, folders)])
    return {Path(s["path"]).name: _key(s["findings"]) for s in json.loads(out.getvalue())["skills"]}


def _every_path(folder: Path, entry: dict, registry: dict, validated: list[tuple], home: Path) -> dict:
    """{path: the security findings it gives for the folder's bytes}, each under the entry's reviewed exceptions."""
    from skillyard.registry.config import load_registry_config
    from skillyard.site.model import skill_view

    reviewed = entry.get("security_exceptions") or []
    files = _files(folder)
    config = Config(home)
    staged = [StagedFile(rel, content, executable) for rel, (content, executable) in files.items()]
    policy = load_registry_config(ROOT).policy("lenient")
    paths = {
        "validate (and the PR bot's report)": validated,
        "site page": _key(skill_view(registry, entry)["findings"]),
        "external add/verify/bump": _key(check_folder(files, folder.name, policy, reviewed).findings),
    }
    try:
        paths["install from the registry"] = _key(scan_entry(staged, entry, config, what=folder.name).findings)
    except SkillyardError as exc:  # a refusal lists the blocking findings: they must be validate's errors
        paths["install from the registry"] = "refused"
        assert any(f[1] == "error" and f[6] is None for f in validated), (folder.name, exc.message)
    return paths


def _assert_equal(name: str, paths: dict) -> None:
    expected = paths["validate (and the PR bot's report)"]
    for path, found in paths.items():
        if found == "refused":
            continue
        assert found == expected, f"{name}: {path} differs from validate: {sorted(map(repr, set(found) ^ set(expected)))}"


@pytest.fixture(scope="module")
def validated() -> dict[str, list[tuple]]:
    return _validate(_own_skills())


@pytest.fixture(scope="module")
def registry() -> dict:
    return json.loads((ROOT / "registry.json").read_text(encoding="utf-8"))


def test_there_are_own_skills_to_compare():
    assert len(_own_skills()) >= 10


@pytest.mark.parametrize("folder", _own_skills(), ids=lambda p: p.name)
def test_every_path_gives_the_same_findings(folder, validated, registry, tmp_path, monkeypatch):
    monkeypatch.setenv("SKILL_HOME", str(tmp_path / "home"))
    entry = next(s for s in registry["skills"] if s["name"] == folder.name)
    _assert_equal(folder.name, _every_path(folder, entry, registry, validated[folder.name], tmp_path / "home"))


def test_every_path_agrees_on_skills_with_findings(tmp_path, monkeypatch):
    """The own skills have no findings today, so the same comparison over the labelled sets (tests/security_sets):
    skills that warn, block, and carry reviewed exceptions."""
    from tests.security_sets import materialize

    from skillyard.format.policy import Policy
    from skillyard.format.verdict import judge
    from skillyard.registry.compile import compile_skill

    monkeypatch.setenv("SKILL_HOME", str(tmp_path / "home"))
    folders = materialize("malicious", tmp_path / "sets") + materialize("benign", tmp_path / "sets")
    validated = _validate(folders)
    with_findings = 0
    for folder in folders:
        entry = compile_skill(judge(folder, Policy(strict=False), own_reviewed=True).package)
        entry["name"] = folder.name  # the install reader names the check folder after the entry
        with_findings += bool(validated[folder.name])
        _assert_equal(folder.name, _every_path(folder, entry, {"repository": {}}, validated[folder.name],
                                               tmp_path / "home"))
    assert with_findings >= 80


def test_skill_validate_lists_what_validate_lists(validated, capsys):
    """The client's `skill validate` (the command install refusals advise) on an own skill with findings."""
    with_findings = [p for p in _own_skills() if validated[p.name]] or _own_skills()[:1]
    folder = with_findings[0]
    from skillyard.cli.main import skill_main

    capsys.readouterr()
    with contextlib.suppress(SystemExit):
        skill_main(["validate", str(folder), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert _key(report["findings"]) == validated[folder.name]
