"""The package as users get it, built once per session: an sdist from a copy of the sources, the wheel built from
that sdist (as `python -m build` does, so a file missing from the sdist is missing from the wheel too), and a
fresh venv outside the checkout with only that wheel installed.

Nothing is written into the checkout. `python -m build` itself is not in the test venv, so the sdist comes from
setuptools' PEP 517 backend (what `build` calls) and the wheel from `pip wheel --no-build-isolation` on the
unpacked sdist. The venv borrows the test venv's dependencies by a .pth line (a plain path line does not run that
folder's own .pth files, so the checkout's editable skillyard stays out of sight).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import venv
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def run_ok(cmd: list[str], cwd: Path, env: dict, timeout: int = 300) -> subprocess.CompletedProcess:
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{cmd}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    return result


def clean_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["SKILL_DEFAULT_SOURCE"] = "none"  # never the public default registry: there is no network here
    return env


@dataclass(frozen=True)
class Dists:
    sdist: Path
    wheel: Path


@dataclass(frozen=True)
class Installed:
    bindir: Path
    env: dict

    def tool(self, name: str) -> str:
        return str(self.bindir / name)


@pytest.fixture(scope="session")
def dists(tmp_path_factory) -> Dists:
    base = tmp_path_factory.mktemp("dist")
    src = base / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    if (REPO / "MANIFEST.in").is_file():
        shutil.copy2(REPO / "MANIFEST.in", src / "MANIFEST.in")
    # copytree follows symlinks (tools/skillyard/schemas -> schemas/), as a build from the checkout does
    shutil.copytree(REPO / "tools", src / "tools", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    out = base / "out"
    out.mkdir()
    env = clean_env()
    name = run_ok([sys.executable, "-c", "import sys; from setuptools import build_meta as b; "
                   "print(b.build_sdist(sys.argv[1]))", str(out)], src, env).stdout.strip().splitlines()[-1]
    sdist = out / name
    assert sdist.is_file() and sdist.name.endswith(".tar.gz"), name
    unpacked = base / "unpacked"
    with tarfile.open(sdist) as archive:
        archive.extractall(unpacked, filter="data")
    (root,) = unpacked.iterdir()
    run_ok([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out),
            str(root)], base, env)
    wheels = list(out.glob("skillyard-*.whl"))
    assert len(wheels) == 1, wheels
    return Dists(sdist=sdist, wheel=wheels[0])


@pytest.fixture(scope="session")
def installed(dists, tmp_path_factory) -> Installed:
    """A fresh venv outside the checkout with only the built wheel installed."""
    base = tmp_path_factory.mktemp("venv")
    env_dir = base / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    bindir = env_dir / "bin"
    py = bindir / "python"
    purelib = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    env = clean_env()
    run_ok([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index", "-q",
            str(dists.wheel)], base, env)
    env.update({f"XDG_{kind}_HOME": str(base / "xdg" / kind.lower()) for kind in ("CACHE", "CONFIG", "DATA")})
    env.update(HOME=str(base / "home"), SKILLCLI_HOME=str(base / "skillhome"),
               PATH=f"{bindir}{os.pathsep}" + env.get("PATH", ""))
    return Installed(bindir=bindir, env=env)
