"""`skillyard external verify` of every pointer, and `skill install` of every skill of the registry, against the
real upstream trees: all verify, all install, and every installed file is the pin's (or our own folder's) bytes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.realworld.helpers import COUNTS, expected_files, folder_files, run, tool

from skillyard.format.inputs import RENDERED_FILES


def test_the_standin_holds_every_pointer_at_its_pin(standin, pointers):
    """Every pointer of the committed registry names one of the four repositories and its `pin` commit, and its
    folder is in that tree: otherwise the checks below would test the stand-in, not the registry."""
    wrong = []
    for p in pointers:
        key = tuple(p.repository.split("/"))
        up = standin.upstreams.get(key)
        if up is None or p.commit != up.sha("pin") or not up.trees["pin"].folder(p.path):
            wrong.append(f"{p.name}: {p.repository}@{p.commit[:12]} {p.path}")
    assert not wrong, wrong
    assert sum(len(u.entry["pointer_folders"]) for u in standin.upstreams.values()) == len(pointers)


def test_external_verify_passes_every_pointer(registry, pointers, tool_env):
    done = run([tool("skillyard"), "external", "verify", "--json", "--root", "."], cwd=registry.root, env=tool_env)
    report = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
    results = report.get("pointers") or []
    passed = sorted(r["name"] for r in results if r.get("ok") is True)
    failed = {r["name"]: {"reason": r.get("reason", ""), "differences": [
        " ".join(str(d.get(k, "")) for k in ("kind", "file", "rule", "field")) for d in r.get("differences", [])]}
        for r in results if r["name"] not in passed}
    COUNTS["verified"] = f"{len(passed)}/{len(pointers)}"
    assert done.returncode == 0 and len(passed) == len(pointers), (
        f"exit {done.returncode}; failed: {json.dumps(failed, indent=1)[:6000]}\n{done.stderr[-300:]}")


def test_skill_install_of_every_skill_is_byte_equal(standin, registry, pointers, own, tool_env):
    """One `skill install` of all 97 names (all-or-nothing); when it refuses, each is installed alone so the count
    and every refusal are named."""
    added = run([tool("skill"), "source", "add", registry.url, "--name", "skillyard", "--json"], env=tool_env)
    assert added.returncode == 0, added.stdout + added.stderr
    by_name = {p.name: p for p in pointers}
    names = sorted(set(own) | set(by_name))
    installs = Path(tool_env["HOME"]) / ".agents" / "skills"
    done = run([tool("skill"), "install", *names, "--json"], env=tool_env, timeout=1800)
    refused = {}
    if done.returncode != 0:
        for name in names:
            one = run([tool("skill"), "install", name, "--force"], env=tool_env)
            if one.returncode != 0:
                refused[name] = (one.stderr or one.stdout).strip()[-600:]
    entries = {e["name"]: e for e in registry.data["skills"]}
    differ = {}
    for name in names:
        if name in refused:
            continue
        got = folder_files(installs / name)
        want = expected_files(standin, registry, name, by_name.get(name))
        rendered = set(RENDERED_FILES) if entries[name].get("inputs") else set()
        if set(got) != set(want):
            differ[name] = f"files {sorted(set(got) ^ set(want))}"
        else:
            bad = [rel for rel in want if got[rel] != want[rel] and rel not in rendered]
            if bad:
                differ[name] = f"bytes differ: {bad}"
    ok = len(names) - len(refused) - len(differ)
    COUNTS["installed"] = f"{ok}/{len(names)}"
    assert len(names) == len(own) + len(pointers)
    assert not refused and not differ, (f"first all-at-once install: {done.stderr.strip()[-1500:]}\n"
                                        f"refused: {json.dumps(refused, indent=1)}\ndiffer: {differ}")
