"""The actions our workflows pin, made runnable offline for act: unpacked from ../shared/actions at the pinned
commits, with the generated dist/ bundles the archive lacks rebuilt from the action's own source (npm ci + its
`release` script, ncc), once, into a cache folder reused between runs.

`local_repository_flags` gives act's `--local-repository owner/name@sha=PATH` for each, so act never fetches an
action (with `--action-offline-mode`)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
ACTIONS = SHARED / "actions"
STANDINS = Path(__file__).resolve().parent / "standins"


def cache_root() -> Path:
    """Where unpacked and rebuilt actions live between runs (SKILLYARD_WORKFLOWS_CACHE, default ~/.cache)."""
    default = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "skillyard-workflows"
    return Path(os.environ.get("SKILLYARD_WORKFLOWS_CACHE") or default)


def _unpack(entry: dict, into: Path) -> Path:
    tarball = ACTIONS / entry["tarball"]
    digest = hashlib.sha256(tarball.read_bytes()).hexdigest()
    if digest != entry["sha256"]:
        raise RuntimeError(f"{tarball}: sha256 {digest} is not index.json's {entry['sha256']}")
    target = into / f"{entry['action'].replace('/', '+')}@{entry['commit']}"
    done = target / ".unpacked"
    if done.exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    with tarfile.open(tarball) as archive:
        archive.extractall(target, filter="data")
    (inner,) = [p for p in target.iterdir() if p.is_dir()]
    for child in inner.iterdir():
        child.rename(target / child.name)
    inner.rmdir()
    done.write_text("ok\n")
    return target


def _rebuild_dist(path: Path, missing: list[str]) -> None:
    """Run the action's own build: npm ci, then the script that writes dist/ with ncc (`release` in
    upload-/download-artifact, `prepare` in deploy-pages). download-artifact's script ends in `git add -f dist/`,
    which fails outside a git checkout after the bundle is written, so the script's status is not trusted: the
    bundle's presence is."""
    wanted = [m for m in missing if m.endswith(".js")]
    if all((path / m).exists() for m in wanted):
        return
    scripts = json.loads((path / "package.json").read_text()).get("scripts", {})
    script = "release" if "release" in scripts else "prepare"
    env = {**os.environ, "npm_config_fund": "false", "npm_config_audit": "false", "npm_config_update_notifier": "false"}
    steps = (["npm", "ci", "--ignore-scripts"], ["npm", "run", script])
    for command in steps:
        proc = subprocess.run(["nice", "-n", "10", *command], cwd=path, env=env, capture_output=True, text=True)
        if proc.returncode and command[1] == "ci":
            raise RuntimeError(f"{path}: {' '.join(command)} failed:\n{proc.stderr[-3000:]}")
    still = [m for m in wanted if not (path / m).exists()]
    if still:
        raise RuntimeError(f"{path}: `npm run {script}` did not write {still}:\n{proc.stderr[-3000:]}")


def _runtime_copy(path: Path) -> Path:
    """The action as a runner needs it: everything but node_modules and the sources' tests. act copies a local
    action's whole folder into every job that uses it; with the 360-400 MB of node_modules an npm build leaves,
    that copy took most of a minute per use (ncc's dist/ bundles are self-contained)."""
    target = path.with_name(path.name + ".runtime")
    done = target / ".copied"
    if done.exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(path, target, ignore=shutil.ignore_patterns("node_modules", "__tests__", ".git", ".unpacked",
                                                                ".build-failed"))
    done.write_text("ok\n")
    return target


# Tags the pinned actions use for actions of their own (composite actions): the tag -> the pinned commit it is
# served from. upload-pages-artifact v3.0.1 calls `actions/upload-artifact@v4`; v4.6.2 (pinned) is a v4 release.
ALIASES = {"actions/upload-artifact@v4": "actions/upload-artifact"}


UNAVAILABLE: dict[str, str] = {}   # "owner/name@sha" -> why it could not be made runnable (a scenario needing it fails)


def prepare_actions() -> dict[str, Path]:
    """prepare_actions_unlocked, one process at a time (pytest-xdist workers share the cache folder)."""
    from tests.workflows_act.harness import cache_lock

    with cache_lock(cache_root() / ".actions.lock"):
        return prepare_actions_unlocked()


def prepare_actions_unlocked() -> dict[str, Path]:
    """Every pinned action, runnable: "owner/name@sha" -> its folder. An action with a stand-in of the same name
    under standins/ (same inputs and outputs) uses it; one whose bundle cannot be rebuilt here is left out and
    listed in UNAVAILABLE with the reason (act, offline, then stops at the step that uses it)."""
    index = json.loads((ACTIONS / "index.json").read_text())
    root = cache_root() / "actions"
    out: dict[str, Path] = {}
    for entry in index["actions"]:
        key = f"{entry['action']}@{entry['commit']}"
        standin = STANDINS / entry["action"].split("/")[1]
        path = _unpack(entry, root)
        if standin.is_dir():   # a faithful local stand-in (standins/<name>/README.md says why)
            out[key] = standin
            continue
        if entry["missing"]:
            failed = path / ".build-failed"   # not retried each run; SKILLYARD_WORKFLOWS_REBUILD=1 retries
            if failed.exists() and not os.environ.get("SKILLYARD_WORKFLOWS_REBUILD"):
                UNAVAILABLE[key] = failed.read_text()
                continue
            try:
                _rebuild_dist(path, entry["missing"])
            except RuntimeError as exc:
                lines = str(exc).splitlines()
                UNAVAILABLE[key] = lines[0] + " " + " ".join(lines[1:])[-400:]
                failed.write_text(UNAVAILABLE[key])
                continue
            failed.unlink(missing_ok=True)
            path = _runtime_copy(path)
        out[key] = path
    for alias, action in ALIASES.items():
        for key, path in list(out.items()):
            if key.split("@")[0] == action:
                out[alias] = path
    return out


def local_repository_flags(actions: dict[str, Path]) -> list[str]:
    flags: list[str] = []
    for key, path in sorted(actions.items()):
        flags += ["--local-repository", f"{key}={path}"]
    return flags
