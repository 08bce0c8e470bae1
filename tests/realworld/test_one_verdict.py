"""One verdict over the real upstream files behind every pointer entry of the committed registry.

The pinned trees come from ../shared/upstream (the tarballs codeload serves, with index.json), read by the same
bounded reader `external add` and `verify` use. For every pointer (skills/*/source.yaml), the security findings of
its real files must be the same on every path that judges them:

- `skillyard external add/verify/bump` (`registry.external.check_folder`, under the pointer's reviewed
  `registry.security_exceptions`);
- `skill install NAME` from the registry (`client.candidates.scan_entry`, under registry.json's entry);
- the site's skill page (the findings block of `site.model.skill_view`: the findings the pointer records, so a
  recorded verdict that today's rules no longer give fails here: `skillyard external refresh-findings`);
- `skillyard validate` and `skill validate` of the folder (no registry reviewed anything there: the same findings,
  with no exception marking them allowed).

Self-contained (another suite owns the rest of tests/realworld): it skips with the reason when ../shared is absent,
unless SKILLYARD_REALWORLD=1 says it must run."""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(__file__).resolve().parents[2].parent / "shared"
UPSTREAM = SHARED / "upstream"
KEYS = ("rule", "severity", "file", "line", "field", "message", "allowed")

if not (UPSTREAM / "index.json").is_file():
    if os.environ.get("SKILLYARD_REALWORLD") == "1":
        raise RuntimeError(f"SKILLYARD_REALWORLD=1 but {UPSTREAM}/index.json is missing: the real-world data is "
                           "required here")
    pytest.skip(f"the real upstream trees are not here ({UPSTREAM}/index.json): a user's clone has no ../shared",
                allow_module_level=True)


def _key(findings, *, allowed: bool = True) -> list[tuple]:
    from skillyard.format.verdict import security_dicts

    keys = KEYS if allowed else KEYS[:-1]
    return sorted(tuple(None if f.get(k) == "" else f.get(k) for k in keys) for f in security_dicts(findings))


def _pointers() -> list[tuple[str, dict]]:
    from skillyard.format.pointer import parse_pointer

    out = []
    for path in sorted((ROOT / "skills").glob("*/source.yaml")):
        pointer, problems = parse_pointer(path.read_text(encoding="utf-8"), folder_name=path.parent.name)
        assert pointer is not None, (path, problems)
        out.append((path.parent.name, pointer.data))
    return out


@pytest.fixture(scope="module")
def archives() -> dict[tuple[str, str], object]:
    """{(repository, pinned commit): the tarball read as `external add` reads it}."""
    from skillyard.format import tarball

    index = json.loads((UPSTREAM / "index.json").read_text(encoding="utf-8"))
    out = {}
    for repo in index["repositories"]:
        pin = repo["pin"]
        data = (UPSTREAM / repo["repository"].replace("/", "+") / pin["tarball"]).read_bytes()
        out[repo["repository"], pin["sha"]] = tarball.read_archive(data)
    return out


def test_the_registry_points_at_exactly_the_index_folders():
    index = json.loads((UPSTREAM / "index.json").read_text(encoding="utf-8"))
    listed = {(r["repository"], folder) for r in index["repositories"] for folder in r["pointer_folders"]}
    pointed = {(d["upstream"]["repository"], d["upstream"]["path"]) for _, d in _pointers()}
    assert pointed == listed


def test_every_path_gives_the_same_findings_for_every_pointer(archives, tmp_path):
    from skillyard.cli.main import skill_main, skillyard_main
    from skillyard.client.candidates import scan_entry
    from skillyard.client.config import Config
    from skillyard.client.store import StagedFile
    from skillyard.errors import SkillyardError
    from skillyard.format import tarball
    from skillyard.registry.config import load_registry_config
    from skillyard.registry.external import check_folder, pointer_policy
    from skillyard.site.model import skill_view

    registry = json.loads((ROOT / "registry.json").read_text(encoding="utf-8"))
    entries = {s["name"]: s for s in registry["skills"]}
    config = load_registry_config(ROOT)
    policy = pointer_policy(config)
    client = Config(tmp_path / "home")
    pointers = _pointers()
    assert len(pointers) >= 80
    disagreements = []
    folders = {}
    judged = {}
    for name, data in pointers:
        upstream = data["upstream"]
        archive = archives[upstream["repository"], upstream["commit"]]
        files = tarball.folder_files(archive, upstream["path"])
        reviewed = (data.get("registry") or {}).get("security_exceptions") or []
        entry = entries[name]
        staged = [StagedFile(rel, content, executable) for rel, (content, executable) in files.items()]
        paths = {"external add/verify/bump": _key(check_folder(files, name, policy, reviewed).findings),
                 "site page": _key(skill_view(registry, entry)["findings"])}
        try:
            paths["install from the registry"] = _key(scan_entry(staged, entry, client, what=name).findings)
        except SkillyardError as exc:
            paths["install from the registry"] = [("refused", exc.message[:300])]
        judged[name] = paths["external add/verify/bump"]
        expected = paths["external add/verify/bump"]
        disagreements += [(name, path, sorted(map(repr, set(found) ^ set(expected))))
                          for path, found in paths.items() if found != expected]
        target = tmp_path / "folders" / name
        for rel, (content, _) in files.items():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            (target / rel).write_bytes(content)
        folders[name] = target
    # skillyard validate (lenient: what external add applies) over every folder, in this process.
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(SystemExit):
        skillyard_main(["validate", "--root", str(ROOT), "--lenient", "--json", "--no-cache",
                        *map(str, folders.values())])
    validated = {Path(s["path"]).name: _key(s["findings"], allowed=False) for s in json.loads(out.getvalue())["skills"]}
    for name in folders:
        expected = [f[:-1] for f in judged[name]]
        if validated[name] != expected:
            disagreements.append((name, "skillyard validate", sorted(map(repr, set(validated[name]) ^ set(expected)))))
    for name in sorted(folders)[:: max(1, len(folders) // 12)]:  # the client's command, on a spread of them
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(SystemExit):
            skill_main(["validate", str(folders[name]), "--json"])
        found = _key(json.loads(out.getvalue())["findings"], allowed=False)
        if found != [f[:-1] for f in judged[name]]:
            disagreements.append((name, "skill validate", found))
    assert disagreements == [], "\n".join(f"{n}: {p}: {d}" for n, p, d in disagreements)
