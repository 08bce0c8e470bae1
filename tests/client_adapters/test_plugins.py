"""Targets contributed by installed packages (entry point group `skillyard.targets`), through the real `skill`
command in a subprocess: a real .dist-info on PYTHONPATH is what importlib.metadata reads, and `adapter install`
pip-installs a real wheel file (no network) into a fresh virtual environment."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SKILL = "import sys; from skillyard.cli.main import skill_main; sys.exit(skill_main())"

GOOD = '''
import json


class Adapter:
    name = "langchain"
    description = "LangChain tools (test plugin)"
    capabilities = {"read-file": "ReadFileTool"}

    def emit(self, skill):
        return {"langchain/tool.json": json.dumps({"name": skill.name, "instructions": skill.instructions,
                                                   "deps": [d["function_name"] for d in skill.mcp_deps]})}
'''


def make_dist(root: Path, module: str, code: str, entries: dict[str, str], *, dist: str | None = None,
              version: str = "1.0") -> Path:
    """A module plus a real .dist-info (METADATA, entry_points.txt) in `root`, as pip would leave them."""
    dist = dist or f"skillyard-{module.replace('_', '-')}"
    root.mkdir(parents=True, exist_ok=True)
    (root / f"{module}.py").write_text(textwrap.dedent(code), encoding="utf-8")
    info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n", encoding="utf-8")
    lines = "".join(f"{name} = {value}\n" for name, value in entries.items())
    (info / "entry_points.txt").write_text(f"[skillyard.targets]\n{lines}", encoding="utf-8")
    return root


def skill(*argv, paths=(), python=sys.executable, cwd=None):
    home = Path(cwd or ".").resolve() / "home"  # never the real home: user-scope state lands here
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in paths), "HOME": str(home),
           "SKILLCLI_HOME": str(home / ".skillcli")}
    return subprocess.run([python, "-c", SKILL, *map(str, argv)], capture_output=True, text=True, timeout=120,
                          env=env, cwd=cwd)


@pytest.fixture
def skill_folder(tmp_path) -> Path:
    folder = tmp_path / "src" / "calc"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: calc\ndescription: Computes things. Use when numbers matter.\n---\n\n"
                                     "Add {{inputs.unit}} carefully.\n", encoding="utf-8")
    (folder / "skill.yaml").write_text('schema_version: "1.0"\ncapabilities: [read-file]\n'
                                       "inputs:\n  - name: unit\n    type: string\n    default: metres\n"
                                       "mcp_deps:\n  - tool: ocr.recognize\n    required: true\n", encoding="utf-8")
    return folder


def test_a_package_target_is_listed_with_its_package_and_emits(tmp_path, skill_folder):
    site = make_dist(tmp_path / "site", "lc_adapter", GOOD, {"langchain": "lc_adapter:Adapter"})
    done = skill("adapter", "list", "--json", paths=[site], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    table = {t["name"]: t for t in json.loads(done.stdout)["targets"]}
    assert table["langchain"]["origin"] == "package skillyard-lc-adapter 1.0"
    assert table["langchain"]["capabilities"] == {"read-file": "ReadFileTool"}
    assert table["openai"]["origin"] == "built-in"
    text = skill("adapter", "list", paths=[site], cwd=tmp_path)
    assert "langchain  (generated, package skillyard-lc-adapter 1.0)" in text.stdout

    done = skill("emit", skill_folder, "--target", "langchain", "--out", tmp_path / "out", paths=[site], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    emitted = json.loads((tmp_path / "out" / "langchain" / "tool.json").read_text())
    # the plugin gets the skill with inputs rendered and mcp_deps as the tools the app provides
    assert emitted["instructions"].strip() == "Add metres carefully."
    assert emitted["name"] == "calc" and emitted["deps"] == ["ocr__recognize"]
    # without the package the target does not exist
    gone = skill("emit", skill_folder, "--target", "langchain", "--out", tmp_path / "o2", cwd=tmp_path)
    assert gone.returncode != 0 and "unknown target 'langchain'" in gone.stderr and not (tmp_path / "o2").exists()


def test_a_package_target_installs_like_an_api_target(tmp_path, skill_folder):
    site = make_dist(tmp_path / "site", "lc_adapter", GOOD, {"langchain": "lc_adapter:Adapter"})
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    done = skill("install", skill_folder, "--project", "--target", "langchain", "--skip-deps-check", paths=[site],
                 cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    placed = project / ".agents" / "emit" / "langchain" / "calc" / "langchain" / "tool.json"
    assert json.loads(placed.read_text())["name"] == "calc"
    done = skill("uninstall", "calc", "--project", paths=[site], cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (project / ".agents" / "emit" / "langchain" / "calc").exists()  # sub-folders the plugin made too


def test_a_plugin_cannot_replace_a_built_in_target(tmp_path, skill_folder):
    code = GOOD.replace('name = "langchain"', 'name = "openai"')
    site = make_dist(tmp_path / "site", "evil_openai", code, {"openai": "evil_openai:Adapter"})
    done = skill("adapter", "list", paths=[site], cwd=tmp_path)
    assert done.returncode == 0
    assert "package skillyard-evil-openai 1.0: target 'openai' is refused" in done.stderr
    assert "openai  (generated, built-in)" in done.stdout
    done = skill("emit", skill_folder, "--target", "openai", "--out", tmp_path / "out", paths=[site], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "out" / "langchain").exists()  # the built-in wrote its own files
    assert json.loads((tmp_path / "out" / "tools.json").read_text())[0]["type"] == "function"


def test_two_packages_claiming_one_name_are_both_refused(tmp_path):
    first = make_dist(tmp_path / "a", "lc_one", GOOD, {"langchain": "lc_one:Adapter"})
    second = make_dist(tmp_path / "b", "lc_two", GOOD, {"langchain": "lc_two:Adapter"})
    done = skill("adapter", "list", "--json", paths=[first, second], cwd=tmp_path)
    listing = json.loads(done.stdout)
    assert "langchain" not in {t["name"] for t in listing["targets"]}
    assert any("skillyard-lc-one 1.0 and package skillyard-lc-two 1.0 both provide it" in p
               for p in listing["problems"])


@pytest.mark.parametrize("code, why", [
    ("import no_such_module_here\n", "failed to load (ModuleNotFoundError"),
    ("raise SystemExit(3)\n", "failed to load (SystemExit"),
    ("class Adapter:\n    name = '../x'\n    def emit(self, skill):\n        return {}\n", "its `name` is '../x'"),
    ("class Adapter:\n    name = 'noemit'\n", "no `emit(skill)` method"),
    ("class Adapter:\n    @property\n    def name(self):\n        raise KeyError('x')\n", "failed to load (KeyError"),
    ("class Adapter:\n    def __init__(self):\n        raise ValueError('no config')\n", "failed to load (ValueError"),
    ("class Adapter:\n    name = 'bad'\n    capabilities = {'read-file': 3}\n    def emit(self, s):\n        pass\n",
     "`capabilities` is not a mapping"),
])
def test_a_broken_plugin_is_a_warning_naming_its_package_and_others_still_work(tmp_path, skill_folder, code, why):
    broken = make_dist(tmp_path / "broken", "bad_adapter", code, {"bad": "bad_adapter:Adapter"})
    good = make_dist(tmp_path / "good", "lc_adapter", GOOD, {"langchain": "lc_adapter:Adapter"})
    done = skill("adapter", "list", paths=[broken, good], cwd=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "skill: warning: package skillyard-bad-adapter 1.0:" in done.stderr and why in done.stderr
    assert "langchain  (generated" in done.stdout and "claude-code" in done.stdout
    done = skill("emit", skill_folder, "--target", "langchain", "--out", tmp_path / "out", paths=[broken, good],
                 cwd=tmp_path)
    assert done.returncode == 0 and (tmp_path / "out" / "langchain" / "tool.json").is_file()
    done = skill("emit", skill_folder, "--target", "bad", "--out", tmp_path / "o2", paths=[broken], cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr and "unknown target 'bad'" in done.stderr
    assert "skillyard-bad-adapter" in done.stderr and not (tmp_path / "o2").exists()


HOSTILE = {
    "raises": "raise RuntimeError('boom')",
    "not a mapping": "return ['tool.json']",
    "climbs out": "return {'ok.json': '{}', '../escape.json': '{}'}",
    "absolute": "return {'/tmp/abs.json': '{}'}",
    "hidden control": "return {'a\\x1b[2Jb.json': '{}'}",
    "case clash": "return {'A.json': '1', 'a.json': '2'}",
    "file and folder": "return {'a': '1', 'a/b': '2'}",
    "not text": "return {'a.json': 3}",
    "too many": "return {f'f{i}.txt': '' for i in range(500)}",
    "too big": "return {'big.txt': 'x' * (17 * 1024 * 1024)}",
}


@pytest.mark.parametrize("kind", HOSTILE)
def test_whatever_a_plugin_returns_is_checked_before_anything_is_written(tmp_path, skill_folder, kind):
    code = (f"class Adapter:\n    name = 'odd'\n    capabilities = {{'read-file': 'r'}}\n"
            f"    def emit(self, skill):\n        {HOSTILE[kind]}\n")
    site = make_dist(tmp_path / "site", "odd_adapter", code, {"odd": "odd_adapter:Adapter"})
    out = tmp_path / "deep" / "out"
    done = skill("emit", skill_folder, "--target", "odd", "--out", out, paths=[site], cwd=tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "target 'odd' (package skillyard-odd-adapter 1.0)" in done.stderr and "nothing was written" in done.stderr
    assert not out.exists() and not (tmp_path / "deep" / "escape.json").exists()
    assert not Path("/tmp/abs.json").exists()


def test_a_plugin_refuses_capabilities_it_does_not_declare(tmp_path, skill_folder):
    code = GOOD.replace('capabilities = {"read-file": "ReadFileTool"}', "capabilities = {}")
    site = make_dist(tmp_path / "site", "lc_adapter", code, {"langchain": "lc_adapter:Adapter"})
    done = skill("emit", skill_folder, "--target", "langchain", "--out", tmp_path / "out", paths=[site], cwd=tmp_path)
    assert done.returncode != 0 and "cannot serve capability read-file of calc" in done.stderr
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------------------------------- adapter install


def make_wheel(folder: Path, module: str, code: str, target: str) -> Path:
    """A real, minimal pure-Python wheel (what `pip wheel` would build), made without network or a build backend."""
    dist = f"skillyard_{module}"
    info = f"{dist}-1.0.dist-info"
    files = {f"{module}.py": textwrap.dedent(code),
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: skillyard-{module}\nVersion: 1.0\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
             f"{info}/entry_points.txt": f"[skillyard.targets]\n{target} = {module}:Adapter\n"}
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    files[f"{info}/RECORD"] = "\n".join(record + [f"{info}/RECORD,,"]) + "\n"
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"{dist}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


@pytest.fixture
def venv(tmp_path) -> Path:
    """A fresh virtual environment that sees the test environment's packages (skillyard, pip) through a .pth file,
    so whatever `adapter install` adds lands in it and nowhere else."""
    root = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", root], check=True, timeout=120)
    python = root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "_test_env.pth").write_text(f"{sysconfig.get_paths()['purelib']}\n{REPO / 'tools'}\n")
    return python


def test_adapter_install_pip_installs_a_wheel_into_skills_own_environment(tmp_path, venv, skill_folder):
    wheel = make_wheel(tmp_path / "dist", "lcw", GOOD.replace('"langchain"', '"lc-wheel"'), "lc-wheel")
    before = skill("adapter", "list", "--json", python=venv, cwd=tmp_path)
    assert "lc-wheel" not in {t["name"] for t in json.loads(before.stdout)["targets"]}
    done = skill("adapter", "install", wheel, "--yes", python=venv, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "new target(s) lc-wheel" in done.stdout
    listed = skill("adapter", "list", "--json", python=venv, cwd=tmp_path)
    table = {t["name"]: t for t in json.loads(listed.stdout)["targets"]}
    assert table["lc-wheel"]["origin"] == "package skillyard-lcw 1.0"
    done = skill("emit", skill_folder, "--target", "lc-wheel", "--out", tmp_path / "out", python=venv, cwd=tmp_path)
    assert done.returncode == 0 and (tmp_path / "out" / "langchain" / "tool.json").is_file()
    # installed into the venv skill ran from, not into the test environment
    mine = skill("adapter", "list", "--json", cwd=tmp_path)
    assert "lc-wheel" not in {t["name"] for t in json.loads(mine.stdout)["targets"]}


def test_adapter_install_asks_first_and_passes_no_options_to_pip(tmp_path, venv):
    wheel = make_wheel(tmp_path / "dist", "lcw", GOOD, "langchain")
    done = skill("adapter", "install", wheel, python=venv, cwd=tmp_path)  # stdin is not a terminal: no --yes
    assert done.returncode != 0 and "needs confirmation" in done.stderr and "--yes" in done.stderr
    listed = skill("adapter", "list", "--json", python=venv, cwd=tmp_path)
    assert "langchain" not in {t["name"] for t in json.loads(listed.stdout)["targets"]}
    done = skill("adapter", "install", "--yes", "--", "--index-url=http://127.0.0.1:9/", python=venv, cwd=tmp_path)
    assert done.returncode != 0 and "options are not passed to pip" in done.stderr
    done = skill("adapter", "install", "claude-code", "--yes", python=venv, cwd=tmp_path)  # design 000 §4.1's example
    assert done.returncode != 0 and "'claude-code' is a built-in target; there is nothing to install" in done.stderr
    done = skill("adapter", "install", tmp_path / "missing.whl", "--yes", python=venv, cwd=tmp_path)
    assert done.returncode != 0 and "pip could not install" in done.stderr and "Traceback" not in done.stderr
