"""`skill generate` against a real HTTP server on 127.0.0.1 speaking the chat-completions protocol."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.loopback import LoopbackHTTPServer

from skillyard.cli.main import skill_main
from skillyard.client import generate
from skillyard.errors import SkillyardError

GOOD = ("---\nname: csv-summary\ndescription: Summarises a CSV file's columns and missing values. Use when the user "
        "shares a CSV file.\n---\n\n# CSV summary\n\n1. Read the header.\n2. Count missing values per column.\n")


class Stub:
    """What the server answers next, and every request it received."""

    def __init__(self):
        self.answer: bytes | None = None
        self.status = 200
        self.drip = False
        self.requests: list[dict] = []


def _completion(content: str) -> bytes:
    return json.dumps({"id": "x", "object": "chat.completion", "model": "m",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": content}}]}).encode()


@pytest.fixture
def stub():
    state = Stub()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            state.requests.append({"path": self.path, "headers": dict(self.headers),
                                   "body": json.loads(self.rfile.read(length))})
            body = state.answer if state.answer is not None else _completion(GOOD)
            self.send_response(state.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if state.drip:
                try:
                    for byte in body:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(0.5)
                except OSError:
                    pass
                return
            self.wfile.write(body)

    server = LoopbackHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    yield state
    server.shutdown()
    server.server_close()


@pytest.fixture
def configured(tmp_path, monkeypatch, stub):
    home = tmp_path / "skillcli"
    home.mkdir()
    monkeypatch.setenv("SKILLCLI_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TEST_LLM_KEY", "sk-secret-123")

    def write(**extra):
        section = {"base_url": stub.url, "model": "tiny-model", "api_key_env": "TEST_LLM_KEY", **extra}
        lines = "".join(f"  {k}: {json.dumps(v)}\n" for k, v in section.items())
        (home / "config.yaml").write_text(f"generate:\n{lines}", encoding="utf-8")

    write()
    configured.write = write
    return configured


def _entries(folder):
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_generate_writes_a_valid_skill_into_a_new_folder(tmp_path, stub, configured, capsys):
    out = tmp_path / "skills"
    code = skill_main(["generate", "Summarise CSV files", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert (out / "csv-summary" / "SKILL.md").read_text() == GOOD
    assert _entries(out) == ["csv-summary"]  # no temporary folder left
    [request] = stub.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-secret-123"
    assert request["headers"]["Content-Type"] == "application/json"
    assert request["body"]["model"] == "tiny-model"
    assert "Summarise CSV files" in request["body"]["messages"][-1]["content"]
    assert "sk-secret-123" not in captured.out + captured.err


def test_a_fenced_answer_is_unwrapped_and_name_can_be_chosen(tmp_path, stub, configured, capsys):
    stub.answer = _completion("```markdown\n" + GOOD + "```\n")
    code = skill_main(["generate", "Summarise CSV files", "--out", str(tmp_path), "--name", "tabular-report",
                       "--json"])
    assert code == 0, capsys.readouterr().err
    text = (tmp_path / "tabular-report" / "SKILL.md").read_text()
    assert text.startswith("---\nname: tabular-report\ndescription: Summarises") and "```" not in text


@pytest.mark.parametrize("name", ["../up", "a\nb: c", "Upper", "x" * 65])
def test_a_bad_name_option_is_refused(tmp_path, stub, configured, capsys, name):
    code = skill_main(["generate", "Summarise CSV files", "--out", str(tmp_path / "o"), "--name", name])
    assert code != 0 and "is not a skill name" in capsys.readouterr().err and not (tmp_path / "o").exists()


def test_dry_run_prints_and_writes_nothing(tmp_path, stub, configured, capsys):
    code = skill_main(["generate", "Summarise CSV files", "--out", str(tmp_path / "o"), "--dry-run"])
    assert code == 0 and capsys.readouterr().out == GOOD
    assert not (tmp_path / "o").exists()
    stub.answer = _completion(INVALID["markup in frontmatter"])
    code = skill_main(["generate", "Summarise CSV files", "--out", str(tmp_path / "o"), "--dry-run", "--json"])
    shown = json.loads(capsys.readouterr().out)
    assert code == 1 and not shown["ok"] and any("<" in e for e in shown["errors"])
    assert not (tmp_path / "o").exists()


INVALID = {
    "no frontmatter": "# Just a heading\n\nText.\n",
    "name is a path": GOOD.replace("name: csv-summary", "name: ../../evil"),
    "name has capitals": GOOD.replace("name: csv-summary", "name: CSV-Summary"),
    "no description": GOOD.replace("description: Summarises", "summary: Summarises"),
    "markup in frontmatter": GOOD.replace("Use when", "<script>alert(1)</script> Use when"),
    "hidden characters": GOOD.replace("Read the header", "Read the\u202e header"),
    "registry keys in SKILL.md": GOOD.replace("---\n\n#", "version: 1.0.0\ntags: [csv]\n---\n\n#"),
}


@pytest.mark.parametrize("kind", INVALID)
def test_an_invalid_draft_is_refused_with_its_problems_and_nothing_is_written(tmp_path, stub, configured, capsys,
                                                                              kind):
    stub.answer = _completion(INVALID[kind])
    out = tmp_path / "skills"
    out.mkdir()
    code = skill_main(["generate", "Summarise CSV files", "--out", str(out)])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err and "nothing was written" in err
    assert _entries(out) == [] and not (tmp_path / "evil").exists()
    code = skill_main(["generate", "Summarise CSV files", "--out", str(tmp_path / "new" / "skills")])
    assert code != 0 and not (tmp_path / "new").exists()  # not even the --out folder


def test_an_existing_folder_is_never_overwritten(tmp_path, stub, configured, capsys):
    (tmp_path / "csv-summary").mkdir()
    (tmp_path / "csv-summary" / "SKILL.md").write_text("mine")
    code = skill_main(["generate", "Summarise CSV files", "--out", str(tmp_path)])
    assert code != 0 and "already exists" in capsys.readouterr().err
    assert (tmp_path / "csv-summary" / "SKILL.md").read_text() == "mine"


def test_a_key_in_config_is_refused_before_any_request(tmp_path, stub, configured, capsys):
    configured.write(api_key="sk-in-config")
    code = skill_main(["generate", "x", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code != 0 and "generate.api_key" in err and "never read from config" in err
    assert "sk-in-config" not in err and stub.requests == []


def test_missing_config_or_key_says_what_to_set(tmp_path, stub, configured, capsys, monkeypatch):
    monkeypatch.delenv("TEST_LLM_KEY")
    assert skill_main(["generate", "x", "--out", str(tmp_path / "o")]) != 0
    assert "$TEST_LLM_KEY is empty" in capsys.readouterr().err and stub.requests == []
    (tmp_path / "skillcli" / "config.yaml").write_text("{}\n")
    assert skill_main(["generate", "x", "--out", str(tmp_path / "o")]) != 0
    assert "no generate endpoint configured" in capsys.readouterr().err


@pytest.mark.parametrize("answer, status, expected", [
    (b"not json at all", 200, "did not answer like a chat-completions API"),
    (json.dumps({"choices": []}).encode(), 200, "did not answer like a chat-completions API"),
    (b"x" * (generate.MAX_RESPONSE_BYTES + 10), 200, "1,048,576"),
    (b'{"error": {"message": "bad key"}}', 401, "401"),
    (b"[" * 200_000, 200, "did not answer like a chat-completions API"),  # a nesting bomb under the size cap
    (b'{"choices": [{"message": {"content": "---\\nname: x\\n\\ud800"}}]}', 200, "not valid Unicode text"),
])
def test_a_bad_answer_is_a_clear_error(tmp_path, stub, configured, capsys, answer, status, expected):
    stub.answer, stub.status = answer, status
    code = skill_main(["generate", "x", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code != 0 and expected in err and "Traceback" not in err and "sk-secret-123" not in err
    assert not (tmp_path / "o").exists()


def test_a_dripping_server_is_cut_off_by_the_configured_deadline(tmp_path, stub, configured, capsys):
    configured.write(timeout=1)
    stub.drip = True
    code = skill_main(["generate", "x", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err and not (tmp_path / "o").exists()


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=50),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner,
                                                                                 max_size=3), max_leaves=20))
def test_any_json_answer_is_either_text_or_a_value_error(payload):
    try:
        text = generate.skill_md_from(payload)
    except ValueError:
        return
    assert isinstance(text, str) and text.endswith("\n")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_a_generated_name_is_always_safe_to_use_as_a_folder(text):
    try:
        name = generate.skill_name(text)
    except SkillyardError:
        return
    assert generate._NAME.match(name) and "/" not in name and name not in (".", "..")
