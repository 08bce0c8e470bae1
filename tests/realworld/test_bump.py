"""`skillyard external bump` from a copy of the registry whose pointers are pinned at the `older` commits: exactly
the folders that differ between `older` and the pin (index.json's `changed`) move, to the pin; no other moves.

The copy is made with the tools: each pointer whose folder exists at `older` is written again by `skillyard
external add github:OWNER/REPO/PATH@<older sha> --track HEAD` (its reviewed security exceptions passed as --allow).
A changed folder that is new at the pin cannot be pinned at `older`; it stays at the pin and must not move."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor

from tests.realworld.helpers import COUNTS, commit_all, run, tool


def _readd_at_older(root, standin, pointer, env):
    up = standin.upstream(pointer.repository)
    shutil.rmtree(root / "skills" / pointer.name)
    allow = []
    for exc in (pointer.source.get("registry") or {}).get("security_exceptions") or ():
        allow += ["--allow", f"{exc['rule']}:{exc['file']}:{exc['reason']}"]
    ref = f"github:{pointer.repository}/{pointer.path}@{up.sha('older')}"
    return pointer.name, run([tool("skillyard"), "external", "add", ref, "--track", pointer.source["upstream"]
                              .get("tracks", "HEAD"), *allow, "--root", "."], cwd=root, env=env)


def test_bump_from_older_moves_exactly_the_changed_folders(standin, registry, pointers, tool_env, tmp_path):
    root = tmp_path / "older-registry"
    shutil.copytree(registry.root, root, symlinks=True)
    movable = [p for p in pointers if standin.upstream(p.repository).trees["older"].folder(p.path)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        added = list(pool.map(lambda p: _readd_at_older(root, standin, p, tool_env), movable))
    refused = {name: (done.stdout + done.stderr).strip()[-500:] for name, done in added if done.returncode != 0}
    commit_all(root, "pointers at older")
    changed = {p.name for p in pointers if p.path in standin.upstream(p.repository).entry["changed"]}
    expected = {p.name for p in movable if p.name in changed and p.name not in refused}

    done = run([tool("skillyard"), "external", "bump", "--json", "--root", "."], cwd=root, env=tool_env, timeout=1800)
    report = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {"results": []}
    results = {r["name"]: r for r in report["results"]}
    moved = {n for n, r in results.items() if r["status"] == "bumped"}
    refused_bump = {n: r["message"] for n, r in results.items() if r["status"] == "refused"}
    wrong_pin = {n: results[n].get("new_commit") for n in moved
                 if results[n].get("new_commit") != standin.upstream(results[n]["repository"]).sha("pin")}
    new_at_pin = sorted(changed - {p.name for p in movable})
    COUNTS["bump"] = (f"moved {len(moved & expected)}/{len(changed & {p.name for p in movable})} changed folders, "
                      f"{len(moved - expected)} others ({len(new_at_pin)} changed folders are new at the pin)")
    assert not refused, f"`external add …@older` refused: {json.dumps(refused, indent=1)[:5000]}"
    assert moved == expected and not wrong_pin and not refused_bump, (
        f"moved but unchanged: {sorted(moved - expected)}\nchanged but not moved: {sorted(expected - moved)}\n"
        f"not to the pin: {wrong_pin}\nrefused: {json.dumps(refused_bump, indent=1)[:4000]}\n{done.stderr[-1500:]}")
