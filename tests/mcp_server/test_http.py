"""`skill mcp --http`: a real server process on 127.0.0.1, the SDK's streamable HTTP client, the bearer token."""

from __future__ import annotations

import subprocess
import urllib.error
import urllib.request

import anyio
import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from tests.mcp_server.support import SKILL, Client, HttpServer, run_http, server_env, text_of  # noqa: E402
from tests.mcp_server.test_stdio import world  # noqa: E402,F401 (a fixture)
from tests.support.cli_schemas import check_output  # noqa: E402


@pytest.fixture
def http(world):  # noqa: F811
    server = HttpServer(world)
    yield server
    server.stop()


def post(url: str, headers: dict) -> tuple[int, str, dict]:
    body = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",' \
           b'"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode(), dict(answer.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), dict(exc.headers)


def test_it_prints_url_and_token_once_as_its_schema_says(http):
    check_output("skill mcp", 0, http.raw)
    assert http.url.startswith("http://127.0.0.1:") and http.url.endswith("/mcp")
    assert len(http.token) >= 40 and http.info["header"] == f"Authorization: Bearer {http.token}"


@pytest.mark.parametrize("header", [None, "Bearer wrong", "Basic abc", "Bearer ", "bearer {token}x"])
def test_requests_without_the_right_token_are_refused_401(http, header):
    headers = {} if header is None else {"Authorization": header.format(token=http.token)}
    status, body, answer_headers = post(http.url, headers)
    assert status == 401 and "unauthorized" in body
    assert answer_headers.get("www-authenticate") == "Bearer" or answer_headers.get("WWW-Authenticate") == "Bearer"


def test_the_right_token_reaches_the_mcp_layer(http):
    status, body, _ = post(http.url, {"Authorization": f"Bearer {http.token}"})
    assert status == 200 and '"serverInfo"' in body and "skillyard" in body


def test_it_listens_on_loopback_only(http):
    port = int(http.url.rsplit(":", 1)[1].split("/")[0])
    import socket

    probe = socket.socket()
    probe.settimeout(5)
    outward = None
    try:
        probe.connect(("8.8.8.8", 53))  # learn this machine's outward address without sending anything
        outward = probe.getsockname()[0]
    except OSError:
        pass
    finally:
        probe.close()
    if outward is None or outward.startswith("127."):
        pytest.skip("no non-loopback address on this machine")
    with pytest.raises(OSError):
        socket.create_connection((outward, port), timeout=5).close()


def test_everything_over_http(http, world):  # noqa: F811
    async def body(s, init):
        tools = await s.list_tools()
        listed = await s.call_tool("list_skills", {})
        loaded = await s.call_tool("load_skill", {"skill_name": "pdf-tools"})
        read = await s.call_tool("read_skill_file", {"skill_name": "pdf-tools", "file_path": "SKILL.md"})
        resource = await s.read_resource("skill://pdf-tools/SKILL.md")
        templates = await s.list_resource_templates()
        prompts = await s.list_prompts()
        prompt = await s.get_prompt("release-notes", {})
        guarded = await s.call_tool("load_skill", {"skill_name": "guarded"})
        escape = await s.call_tool("read_skill_file", {"skill_name": "pdf-tools", "file_path": "../guarded/SKILL.md"})
        return init, tools, listed, loaded, read, resource, templates, prompts, prompt, guarded, escape

    client = Client(answer=True)
    (init, tools, listed, loaded, read, resource, templates, prompts, prompt, guarded, escape), _ = \
        run_http(http, body, client=client)
    assert init.capabilities.tools.list_changed and init.capabilities.prompts.list_changed
    assert {t.name for t in tools.tools} == {"list_skills", "load_skill", "read_skill_file", "search_skills", "skill_info",
                                          "install_skill"}
    assert "pdf-tools" in text_of(listed) and "hidden-notes" not in text_of(listed)
    assert "The project's own version." in text_of(loaded)
    assert "The project's own version." in text_of(read) and "The project's own version." in resource.contents[0].text
    assert [t.uri_template for t in templates.resource_templates] == ["skill://{name}/{+path}"]
    assert "release-notes" in {p.name for p in prompts.prompts}
    assert "# Release notes" in prompt.messages[0].content.text
    assert not guarded.is_error and "Deploy carefully." in text_of(guarded) and len(client.asked) == 1
    assert escape.is_error and ".." in text_of(escape)


def test_elicitation_answered_no_over_http(http):
    async def body(s, init):
        return await s.call_tool("load_skill", {"skill_name": "guarded"})

    result, client = run_http(http, body, client=Client(answer=False))
    assert result.is_error and "did not approve" in text_of(result) and client.asked


def test_a_wrong_token_fails_the_sdk_client_too(http):
    async def body(s, init):
        return init

    with pytest.raises(BaseException):  # noqa: B017 (the SDK wraps the 401 in an exception group)
        run_http(http, body, token="not-the-token")


def test_many_concurrent_calls(http):
    async def body(s, init):
        out: dict[int, object] = {}

        async def one(i: int) -> None:
            if i % 3 == 0:
                out[i] = await s.call_tool("read_skill_file", {"skill_name": "pdf-tools", "file_path": "SKILL.md"})
            elif i % 3 == 1:
                out[i] = await s.call_tool("list_skills", {})
            else:
                out[i] = await s.call_tool("read_skill_file", {"skill_name": "pdf-tools", "file_path": "/etc/passwd"})

        async with anyio.create_task_group() as group:
            for i in range(60):
                group.start_soon(one, i)
        return out

    out, _ = run_http(http, body)
    assert len(out) == 60
    for i, result in out.items():
        if i % 3 == 0:
            assert not result.is_error and "The project's own version." in text_of(result)
        elif i % 3 == 1:
            assert "pdf-tools" in text_of(result)
        else:
            assert result.is_error and "root:" not in text_of(result)


def test_json_needs_http_and_says_so_in_json(world):  # noqa: F811
    done = subprocess.run([SKILL, "mcp", "--json"], capture_output=True, text=True, timeout=60,
                          env=server_env(world))
    assert done.returncode != 0
    error = check_output("skill mcp", done.returncode, done.stdout)
    assert "--json needs --http" in str(error)


def test_a_port_in_use_is_a_clear_error(http, world):  # noqa: F811
    port = http.url.rsplit(":", 1)[1].split("/")[0]
    done = subprocess.run([SKILL, "mcp", "--http", "--port", port], capture_output=True, text=True, timeout=60,
                          env=server_env(world))
    assert done.returncode != 0 and f"cannot listen on 127.0.0.1:{port}" in done.stderr


def test_a_foreign_host_header_is_refused_even_with_the_token(http):
    """A page on another site rebinding its name to 127.0.0.1 sends its own Host: the SDK's guard refuses it."""
    port = http.url.rsplit(":", 1)[1].split("/")[0]
    status, _, _ = post(http.url, {"Authorization": f"Bearer {http.token}", "Host": f"evil.example:{port}"})
    assert status in (403, 421)
    status, _, _ = post(http.url, {"Authorization": f"Bearer {http.token}", "Origin": "http://evil.example"})
    assert status == 403
