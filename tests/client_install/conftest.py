import json
import socket
import subprocess
import sys
import textwrap
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests.support.fixtures import *  # noqa: E402,F403
from tests.support.loopback import LoopbackHTTPServer  # noqa: E402
from tests.support.registry import publish_registry, registry_url, skill_md  # noqa: E402

MCP_TOOLS = ["ocr.recognize", "kb.upload", "kb.search", "pdf.split"]


class StaticServer:
    """A loopback HTTP server answering GET <path> from a dict (bytes or a callable); logs every path."""

    def __init__(self):
        self.routes: dict[str, object] = {}
        self.log: list[str] = []
        routes, log = self.routes, self.log

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):  # noqa: N802
                log.append(self.path)
                body = routes.get(self.path)
                if callable(body):
                    body = body()
                if body is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = LoopbackHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def static_server():
    server = StaticServer()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _no_cache(skill_home, monkeypatch):
    monkeypatch.setenv("SKILL_CACHE_TTL", "0")


@pytest.fixture
def user_home(skill_home):
    import os

    return Path(os.environ["HOME"])


@pytest.fixture
def configure(skill_home):
    """configure(key, value) / configure.source(name, url, token_env=None, priority=None)."""
    from skillyard.client.config import Source, edit

    class Configure:
        def __call__(self, key, value):
            with edit() as config:
                config.set(key, value)

        def source(self, name, url, token_env=None, priority=None):
            with edit() as config:
                config.put_source(Source(name, url, token_env, priority if priority is not None else config.next_priority()))

    return Configure()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


MCP_SCRIPT = textwrap.dedent('''
    import sys
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("test-hub")
    for name in sys.argv[2].split(","):
        def handler(text: str = "") -> str:
            return text
        server.tool(name=name, description="test tool " + name)(handler)
    server.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
''')


@pytest.fixture(scope="session")
def mcp_server(tmp_path_factory):
    """A real MCP server (official SDK, streamable HTTP) offering MCP_TOOLS; yields its /mcp URL."""
    yield from run_mcp_server(tmp_path_factory, MCP_TOOLS)


def run_mcp_server(tmp_path_factory, tools: list[str]):
    """Start a real MCP server offering `tools`, yield its /mcp URL, stop it (the body of an MCP fixture)."""
    script = tmp_path_factory.mktemp("mcp") / "server.py"
    script.write_text(MCP_SCRIPT)
    port = _free_port()
    proc = subprocess.Popen([sys.executable, str(script), str(port), ",".join(tools)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("MCP server exited: " + proc.stderr.read().decode(errors="replace"))
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            time.sleep(0.1)
    else:
        proc.kill()
        raise RuntimeError("MCP server did not start")
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()


NOTES_V1 = {
    "name": "notes",
    "description": "Take structured meeting notes.",
    "version": "1.0.0",
    "files": {
        "SKILL.md": skill_md("notes", "Take structured meeting notes.", "# Notes\n\nWrite notes.\n",
                             version="1.0.0", license="MIT"),
        "references/format.md": "# Format\n\nHeadings, then bullets.\n",
        "scripts/count.py": "print('count')\n",
    },
    "executable": ["scripts/count.py"],
}

REPORT_KIT = {
    "name": "report-kit",
    "description": "Write weekly team reports.",
    "version": "2.1.0",
    "inputs": [{"name": "team", "type": "string", "required": True, "description": "Team name"},
               {"name": "limit", "type": "number", "required": False, "default": 5},
               {"name": "tone", "type": "enum", "required": False, "enum": ["formal", "casual"], "default": "formal"}],
    "files": {
        "SKILL.md": skill_md(
            "report-kit", "Write weekly team reports.",
            "# Report kit\n\nReport for team {{inputs.team}}, at most {{ inputs.limit }} items, {{inputs.tone}} tone.\n",
            version="2.1.0", license="MIT",
            inputs=[{"name": "team", "type": "string", "required": True, "description": "Team name"},
                    {"name": "limit", "type": "number", "default": 5},
                    {"name": "tone", "type": "enum", "enum": ["formal", "casual"], "default": "formal"}]),
        "assets/template.md": "## {{inputs.team}} stays literal outside SKILL.md\n",
    },
}


def notes_v2():
    spec = json.loads(json.dumps(NOTES_V1))
    spec["version"] = "1.1.0"
    spec["files"]["SKILL.md"] = skill_md("notes", "Take structured meeting notes.", "# Notes\n\nWrite better notes.\n",
                                         version="1.1.0", license="MIT")
    spec["files"]["references/examples.md"] = "# Examples\n"
    return spec


@pytest.fixture
def registry(git_server, configure):
    """acme/skills publishing notes 1.0.0 and report-kit 2.1.0, added as source `acme`."""
    reg = publish_registry(git_server, "acme", "skills", [NOTES_V1, REPORT_KIT], name="acme")
    configure.source("acme", registry_url(git_server, "acme", "skills"))
    return reg


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (links followed at the top only), for byte-identical comparisons."""
    folder = Path(folder)
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
