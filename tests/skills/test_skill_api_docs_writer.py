"""Behaviour of skills/api-docs-writer/scripts/py_api_outline.py (static: the documented code never runs)."""

from __future__ import annotations

import json

PKG_INIT = '''"""Tiny package for tests."""
from .core import fetch
__all__ = ["fetch", "Client"]
class Client:
    """Talks to the service."""
    def __init__(self, url: str) -> None:
        self.url = url
    @property
    def name(self) -> str:
        return "x"
    def get(self, key, default=None):
        """Read one key."""
    def _hidden(self): ...
class Internal:
    """Not exported."""
'''

CORE = '''"""Core helpers."""
import sys
sys.exit("imported!")  # proves the file is never executed
TIMEOUT = 10
_SECRET = 1
async def fetch(url: str, *, timeout: float = 10.0) -> bytes:
    """Download a resource.

    More details here.
    """
def undocumented(x): ...
def _private(): ...
'''


def make_pkg(tmp_path):
    pkg = tmp_path / "src" / "tinypkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(PKG_INIT, encoding="utf-8")
    (pkg / "core.py").write_text(CORE, encoding="utf-8")
    (pkg / "_impl.py").write_text("def hidden(): ...\n", encoding="utf-8")
    (pkg / "tests").mkdir()
    (pkg / "tests" / "test_x.py").write_text("def test(): ...\n", encoding="utf-8")
    return pkg


def test_outline_respects_all_and_privacy(run, tmp_path):
    pkg = make_pkg(tmp_path)
    done = run("api-docs-writer", "py_api_outline.py", str(pkg), "--json")
    assert done.returncode == 0, done.stderr
    modules = {m["module"]: m for m in json.loads(done.stdout)}
    assert sorted(modules) == ["tinypkg", "tinypkg.core"]
    init = modules["tinypkg"]
    assert [i["name"] for i in init["items"]] == ["Client"]  # __all__ wins; Internal is left out
    members = {m["name"]: (m["kind"], m["signature"]) for m in init["items"][0]["members"]}
    assert members == {"__init__": ("method", "__init__(self, url: str) -> None"),
                       "name": ("property", "name(self) -> str"),
                       "get": ("method", "get(self, key, default=None)")}
    assert init["missing_docstrings"] == ["Client.name"]
    core = modules["tinypkg.core"]
    assert [(i["kind"], i["name"]) for i in core["items"]] == [
        ("constant", "TIMEOUT"), ("function", "fetch"), ("function", "undocumented")]
    assert core["items"][1]["signature"] == "async fetch(url: str, *, timeout: float=10.0) -> bytes"
    assert core["items"][1]["summary"] == "Download a resource."
    assert core["missing_docstrings"] == ["undocumented"]


def test_markdown_output_and_syntax_errors(run, tmp_path):
    pkg = make_pkg(tmp_path)
    done = run("api-docs-writer", "py_api_outline.py", str(pkg / "core.py"))
    assert done.returncode == 0
    assert "## `core`" in done.stdout
    assert "### `async fetch(url: str, *, timeout: float=10.0) -> bytes`" in done.stdout
    assert "Missing docstrings: `undocumented`" in done.stdout
    (pkg / "broken.py").write_text("def oops(:\n", encoding="utf-8")
    done = run("api-docs-writer", "py_api_outline.py", str(pkg))
    assert done.returncode == 1 and "broken.py:1: cannot parse" in done.stderr
    assert run("api-docs-writer", "py_api_outline.py", str(tmp_path / "nope")).returncode == 2
