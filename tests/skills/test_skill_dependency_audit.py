"""Behaviour of skills/dependency-audit/scripts/lockfile_audit.py on small lockfiles of every supported kind."""

from __future__ import annotations

import json


def make_project(root):
    (root / "requirements.txt").write_text(
        "# app\nRequests==2.30.0\nflask>=2\nclick\n-e ./local\nurllib3==1.26.5 ; python_version>'3'\n", encoding="utf-8")
    (root / "poetry.lock").write_text(
        '[[package]]\nname = "requests"\nversion = "2.31.0"\n\n[[package]]\nname = "idna"\nversion = "3.4"\n',
        encoding="utf-8")
    web = root / "web"
    web.mkdir()
    (web / "package-lock.json").write_text(json.dumps({"lockfileVersion": 3, "packages": {
        "": {"name": "web"},
        "node_modules/left-padder": {"version": "1.0.4"},
        "node_modules/a/node_modules/left-padder": {"version": "1.1.0", "dev": True},
        "node_modules/@scope/pkg": {"version": "0.2.0"},
    }}), encoding="utf-8")
    (web / "yarn.lock").write_text('"@scope/pkg@^0.2.0", "@scope/pkg@~0.2":\n  version "0.2.1"\n', encoding="utf-8")
    (root / "Cargo.lock").write_text('[[package]]\nname = "serde"\nversion = "1.0.190"\n', encoding="utf-8")
    (root / "go.sum").write_text("golang.org/x/net v0.17.0 h1:x=\ngolang.org/x/net v0.17.0/go.mod h1:y=\n",
                                 encoding="utf-8")
    nm = root / "node_modules" / "x"
    nm.mkdir(parents=True)
    (nm / "package-lock.json").write_text("{not json", encoding="utf-8")  # skipped folder
    advisories = [
        {"id": "GHSA-1", "ecosystem": "pypi", "package": "requests", "introduced": "2.0.0", "fixed": "2.31.0",
         "severity": "high", "summary": "header leak"},
        {"id": "OSV-2", "ecosystem": "npm", "package": "left-padder", "versions": ["1.0.4"], "severity": "critical"},
        {"id": "RUSTSEC-3", "ecosystem": "crates.io", "package": "serde", "fixed": "1.0.9", "severity": "low"},
        {"id": "GO-4", "ecosystem": "go", "package": "golang.org/x/net", "fixed": "0.17.1", "severity": "moderate"},
    ]
    (root / "adv.json").write_text(json.dumps(advisories), encoding="utf-8")


def test_inventory_unpinned_multiple_and_vulnerable(run, tmp_path):
    make_project(tmp_path)
    done = run("dependency-audit", "lockfile_audit.py", str(tmp_path), "--advisories", str(tmp_path / "adv.json"),
               "--json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["errors"] == []
    assert sorted((f["file"].rsplit("/", 1)[-1], f["packages"]) for f in report["files"]) == [
        ("Cargo.lock", 1), ("go.sum", 1), ("package-lock.json", 3), ("poetry.lock", 2), ("requirements.txt", 2),
        ("yarn.lock", 1)]
    assert [(u["line"], u["reason"].split(" (")[0]) for u in report["unpinned"]] == [
        (3, "not pinned to one version"), (4, "no version constraint"),
        (5, "installed from a path or URL, not a pinned release")]
    multiple = {m["name"]: m["versions"] for m in report["multiple_versions"]}
    assert multiple == {"requests": ["2.30.0", "2.31.0"], "left-padder": ["1.0.4", "1.1.0"],
                        "@scope/pkg": ["0.2.0", "0.2.1"]}
    vulnerable = {(v["id"], v["name"], v["version"]) for v in report["vulnerable"]}
    # serde 1.0.190 is newer than the fix 1.0.9 (numeric, not string, comparison); requests 2.31.0 is fixed.
    assert vulnerable == {("GHSA-1", "requests", "2.30.0"), ("OSV-2", "left-padder", "1.0.4"),
                          ("GO-4", "golang.org/x/net", "v0.17.0")}


def test_fail_on_threshold_and_text_output(run, tmp_path):
    make_project(tmp_path)
    adv = str(tmp_path / "adv.json")
    high = run("dependency-audit", "lockfile_audit.py", str(tmp_path / "poetry.lock"), "--advisories", adv,
               "--fail-on", "critical")
    assert high.returncode == 0  # requests 2.31.0 in poetry.lock is fixed
    done = run("dependency-audit", "lockfile_audit.py", str(tmp_path / "requirements.txt"), "--advisories", adv,
               "--fail-on", "high")
    assert done.returncode == 1
    assert "VULNERABLE Requests 2.30.0".lower() in done.stdout.lower()
    assert "fixed in 2.31.0" in done.stdout
    assert "UNPINNED" in done.stdout and ":3: flask>=2" in done.stdout
    done = run("dependency-audit", "lockfile_audit.py", str(tmp_path / "requirements.txt"), "--advisories", adv,
               "--min-severity", "critical")
    assert done.returncode == 0 and "VULNERABLE" not in done.stdout


def test_broken_lockfile_and_bad_advisories_exit_2(run, tmp_path):
    (tmp_path / "Pipfile.lock").write_text("{broken", encoding="utf-8")
    done = run("dependency-audit", "lockfile_audit.py", str(tmp_path))
    assert done.returncode == 2 and "Pipfile.lock" in done.stdout
    (tmp_path / "Pipfile.lock").write_text('{"default": {"six": {"version": "==1.16.0"}}}', encoding="utf-8")
    (tmp_path / "adv.json").write_text('{"id": 1}', encoding="utf-8")
    done = run("dependency-audit", "lockfile_audit.py", str(tmp_path), "--advisories", str(tmp_path / "adv.json"))
    assert done.returncode == 2 and "list" in done.stderr
    assert run("dependency-audit", "lockfile_audit.py", str(tmp_path / "nope")).returncode == 2
