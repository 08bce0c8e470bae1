"""Drive a real `skill mcp` process with the MCP SDK's own client, over stdio or over HTTP (issue 38).

`run_stdio` / `run_http` start the server, initialize a `ClientSession` (optionally with an elicitation answer and a
notification collector) and run an async body against it; the HTTP server is a subprocess started with
`--http --json`, whose one JSON line gives the URL and the bearer token."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
from mcp import types
from mcp.client import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

SKILL = str(Path(sys.executable).with_name("skill"))  # the venv's, not a system `skill` (procps)


def server_env(world, **extra: str) -> dict[str, str]:
    env = {"HOME": str(world["home"]), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SKILL_PATH": "",
           "SKILLCLI_HOME": str(world["home"] / ".skillcli"), "SKILL_MCP_POLL_SECONDS": "0.2"}
    env.update(extra)
    return env


def server_args(world, *extra: str) -> list[str]:
    return ["mcp", "--agent", "tester", "--no-cache", "--project", str(world["project"]), *extra]


class Client:
    """The client side's callbacks: what the user answers, what was asked, which notifications arrived."""

    def __init__(self, answer: bool | None = None, can_elicit: bool = True, always: bool = False):
        self.answer, self.can_elicit, self.always = answer, can_elicit, always
        self.asked: list[str] = []
        self.notes: list[str] = []
        self.arrived = anyio.Event()

    async def elicit(self, context, request):
        self.asked.append(request.message)
        if self.answer is None:
            return types.ElicitResult(action="decline")
        content = {"allow": self.answer, "always": True} if self.always else {"allow": self.answer}
        return types.ElicitResult(action="accept", content=content)

    async def message(self, message):
        root = getattr(message, "root", message)
        method = getattr(root, "method", None)
        if isinstance(method, str):
            self.notes.append(method)
            self.arrived.set()

    def session(self, read, write) -> ClientSession:
        return ClientSession(read, write, elicitation_callback=self.elicit if self.can_elicit else None,
                             message_handler=self.message)

    async def wait_for(self, method: str, timeout: float = 30) -> None:
        with anyio.fail_after(timeout):
            while method not in self.notes:
                self.arrived = anyio.Event()
                await self.arrived.wait()


def run_stdio(world, body, *extra: str, client: Client | None = None, env: dict | None = None):
    client = client or Client()

    async def main():
        params = StdioServerParameters(command=SKILL, args=server_args(world, *extra),
                                       env=server_env(world, **(env or {})))
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write), client.session(read, write) as s:
                init = await s.initialize()
                return await body(s, init)

    return anyio.run(main), client


class HttpServer:
    """`skill mcp --http --json` in its own process; `info` is the JSON it printed once listening."""

    def __init__(self, world, *extra: str, env: dict | None = None):
        self.proc = subprocess.Popen([SKILL, *server_args(world, "--http", "--json", *extra)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=server_env(world, **(env or {})))
        line = ""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the JSON object is pretty-printed: read until it parses
            chunk = self.proc.stdout.readline()
            if not chunk:
                raise AssertionError(f"skill mcp --http exited: {self.proc.stderr.read()}")
            line += chunk
            try:
                self.info = json.loads(line)
                self.raw = line
                break
            except ValueError:
                continue
        else:
            raise AssertionError("skill mcp --http did not print its URL")
        self.url, self.token = self.info["url"], self.info["token"]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def run_http(server: HttpServer, body, *, client: Client | None = None, token: str | None = None):
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    client = client or Client()

    async def main():
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token or server.token}"})
        with anyio.fail_after(120):
            async with http, streamable_http_client(server.url, http_client=http) as streams, \
                    client.session(streams[0], streams[1]) as s:
                init = await s.initialize()
                return await body(s, init)

    return anyio.run(main), client


def text_of(result) -> str:
    return "".join(c.text for c in result.content if getattr(c, "text", None) is not None)
