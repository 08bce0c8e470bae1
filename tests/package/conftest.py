"""The package as users get it, built once per session: an sdist from a copy of the sources, the wheel built from
that sdist (as `python -m build` does, so a file missing from the sdist is missing from the wheel too), and a
fresh venv outside the checkout with only that wheel installed.

Nothing is written into the checkout. Both builds are isolated the way `python -m build` isolates them, so the
build-system's own requirement (`setuptools>=69` in pyproject.toml) is what builds, never the test venv's
setuptools (an old one rejects `project.license = "MIT"`): the sdist from setuptools' PEP 517 backend run inside
a fresh build venv holding only the declared build requirements, the wheel from `pip wheel --no-deps` (build
isolation on) on the unpacked sdist. Both fetch the build requirements from the package index.

`installed` borrows the test venv's dependencies by a .pth line (a plain path line does not run that folder's own
.pth files, so the checkout's editable skillyard stays out of sight): fast, and no index needed.
`index_installed` is the real thing: `pip install WHEEL` into a fresh venv, dependencies resolved from the package
index, no extras: the base install a user gets.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import venv
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def run_ok(cmd: list[str], cwd: Path, env: dict, timeout: int = 300) -> subprocess.CompletedProcess:
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{cmd}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    return result


OFFLINE_SIGNS = ("No matching distribution", "Could not find a version", "NewConnectionError", "Failed to establish",
                 "Temporary failure in name resolution", "Network is unreachable", "error sending request",
                 "Failed to fetch", "dns error")


def install_or_skip(cmd: list[str], cwd: Path, env: dict, what: str, timeout: int = 600) -> None:
    """Run an install that needs the package index; skip (saying why) only when the index cannot be reached."""
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    out = result.stdout + result.stderr
    if result.returncode != 0 and any(sign in out for sign in OFFLINE_SIGNS):
        pytest.skip(f"{what}: the package index cannot be reached ({out.strip().splitlines()[-1][:200]})")
    assert result.returncode == 0, f"{cmd}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"


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


def build_requirements() -> list[str]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["requires"]


def build_venv(where: Path, env: dict) -> Path:
    """A fresh venv holding only the build-system's requirements (what `python -m build` sets up); its python."""
    venv.EnvBuilder(with_pip=True).create(where)
    py = where / "bin" / "python"
    install_or_skip([str(py), "-m", "pip", "install", "-q", *build_requirements()], where, env, "the build venv")
    return py


def fresh_venv(where: Path) -> Path:
    """An empty venv with pip: nothing of the test venv's is visible in it. Returns its bin folder."""
    venv.EnvBuilder(with_pip=True).create(where)
    return where / "bin"


def isolated_env(base: Path, bindir: Path | None = None) -> dict:
    """The test-run environment a user's shell would have: own HOME, XDG folders and skill home under `base`."""
    env = clean_env()
    env.update({f"XDG_{kind}_HOME": str(base / "xdg" / kind.lower()) for kind in ("CACHE", "CONFIG", "DATA")})
    env.update(HOME=str(base / "home"), SKILLCLI_HOME=str(base / "skillhome"))
    if bindir is not None:
        env["PATH"] = f"{bindir}{os.pathsep}" + env.get("PATH", "")
    return env


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
    builder = build_venv(base / "build-env", env)
    name = run_ok([str(builder), "-c", "import sys; from setuptools import build_meta as b; "
                   "print(b.build_sdist(sys.argv[1]))", str(out)], src, env).stdout.strip().splitlines()[-1]
    sdist = out / name
    assert sdist.is_file() and sdist.name.endswith(".tar.gz"), name
    unpacked = base / "unpacked"
    with tarfile.open(sdist) as archive:
        archive.extractall(unpacked, filter="data")
    (root,) = unpacked.iterdir()
    install_or_skip([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(root)], base, env,
                    "pip wheel (isolated build)")
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


@pytest.fixture(scope="session")
def index_installed(dists, tmp_path_factory) -> Installed:
    """`python -m pip install WHEEL` into a fresh venv: the base install, dependencies from the package index."""
    base = tmp_path_factory.mktemp("pipvenv")
    bindir = fresh_venv(base / "venv")
    env = isolated_env(base, bindir)
    install_or_skip([str(bindir / "python"), "-m", "pip", "install", "-q", str(dists.wheel)], base, env,
                    "pip install WHEEL")
    return Installed(bindir=bindir, env=env)
