"""`skill publish` against an API that is not there: one clear line naming the URL, no traceback, nothing sent."""

from __future__ import annotations

import socket
import threading

import pytest

from skillyard.cli.main import skill_main

SKILL_MD = "---\nname: notes\ndescription: Tidies meeting notes. Use when the user pastes notes.\nlicense: MIT\n---\n\nDo it.\n"


@pytest.fixture
def skill(tmp_path, monkeypatch):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (folder / "skill.yaml").write_text('schema_version: "1.0"\nversion: 1.0.0\nauthor: carol\n', encoding="utf-8")
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SKILLCLI_HOME", str(tmp_path / "skillcli"))
    return folder


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def hangup_url():
    """A server that accepts each connection and closes it without a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    server.close()


def _assert_clear(capsys, code, url):
    out, err = capsys.readouterr()
    assert code != 0 and "Traceback" not in err + out
    # the wording may come from publish itself or from the CLI's central mapping of network errors: both name
    # the endpoint and the option that fixes it, in one message
    assert "cannot reach" in err and url in err and err.startswith("error:")
    assert "--api-url" in err and "t0ken" not in err


def test_publish_to_a_closed_port_is_a_clear_error(skill, capsys):
    url = f"http://127.0.0.1:{_closed_port()}"
    code = skill_main(["publish", str(skill), "--registry", "acme/skills", "--api-url", url])
    _assert_clear(capsys, code, url)


def test_publish_to_a_server_that_hangs_up_is_a_clear_error(skill, capsys, hangup_url):
    code = skill_main(["publish", str(skill), "--registry", "acme/skills", "--api-url", hangup_url])
    _assert_clear(capsys, code, hangup_url)
