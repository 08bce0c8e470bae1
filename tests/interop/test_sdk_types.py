"""The provider SDKs' own request types accept every `skill emit` output: tools.json (and tools.responses.json)
plus system.md, for each skill in skills/. Nothing is sent: the request is built and validated locally.

For the TypedDict request types of `openai` and `anthropic`, pydantic validates the request and drops keys the
type does not know, so the validated request must equal what we emitted: an unknown or misspelt key fails.
`google-genai` types are pydantic models that forbid unknown fields."""

from __future__ import annotations

import json

import pytest
from tests.interop.clients import run, skill_folders, skillyard_bin


def _emit(folder, target, out):
    done = run([skillyard_bin("skill"), "emit", folder, "--target", target, "--out", out])
    assert done.returncode == 0, done.stdout + done.stderr
    return {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()}


def _plain(value):
    """The validated request as plain data; iterating the SDK's lazy `Iterable[...]` fields validates each item."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, str | bytes | int | float | bool) or value is None:
        return value
    return [_plain(item) for item in value]


def _same_after_validation(type_, value):
    from pydantic import TypeAdapter

    adapter = TypeAdapter(type_)  # kept alive while the lazy iterators it returned are consumed
    assert _plain(adapter.validate_python(value)) == value


@pytest.mark.parametrize("folder", skill_folders(), ids=lambda p: p.name)
def test_openai_request_types_accept_the_emitted_tools(folder, tmp_path):
    openai = pytest.importorskip("openai", reason="openai: the PyPI package could not be installed")
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
    from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

    files = _emit(folder, "openai", tmp_path / "o")
    chat = {"model": "gpt-4.1", "messages": [{"role": "system", "content": files["system.md"]},
                                              {"role": "user", "content": "hi"}],
            "tools": json.loads(files["tools.json"])}
    _same_after_validation(CompletionCreateParamsNonStreaming, chat)
    responses = {"model": "gpt-4.1", "instructions": files["system.md"], "input": "hi",
                 "tools": json.loads(files["tools.responses.json"])}
    _same_after_validation(ResponseCreateParamsNonStreaming, responses)
    assert openai.__version__


@pytest.mark.parametrize("folder", skill_folders(), ids=lambda p: p.name)
def test_anthropic_request_type_accepts_the_emitted_tools(folder, tmp_path):
    pytest.importorskip("anthropic", reason="anthropic: the PyPI package could not be installed")
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming

    files = _emit(folder, "anthropic-api", tmp_path / "a")
    request = {"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": files["system.md"],
               "messages": [{"role": "user", "content": "hi"}], "tools": json.loads(files["tools.json"])}
    _same_after_validation(MessageCreateParamsNonStreaming, request)


@pytest.mark.parametrize("folder", skill_folders(), ids=lambda p: p.name)
def test_google_genai_config_accepts_the_emitted_declarations(folder, tmp_path):
    pytest.importorskip("google.genai", reason="google-genai: the PyPI package could not be installed")
    from google.genai import types

    files = _emit(folder, "gemini-api", tmp_path / "g")
    emitted = json.loads(files["tools.json"])  # a list of Tool objects, as GenerateContentConfig.tools takes it
    tools = [types.Tool.model_validate(t) for t in emitted]  # extra="forbid": unknown keys fail
    config = types.GenerateContentConfig(system_instruction=files["system.md"], tools=tools)
    declared = [d.name for d in config.tools[0].function_declarations]
    assert declared == [d["name"] for d in emitted[0]["function_declarations"]]
    assert all(d.parameters.type == types.Type.OBJECT for d in config.tools[0].function_declarations)
    # execute-code is Gemini's built-in code execution, present exactly when the skill declares it
    manifest = (folder / "skill.yaml").read_text(encoding="utf-8") if (folder / "skill.yaml").is_file() else ""
    wants_code = "execute-code" in manifest
    assert [t.code_execution is not None for t in config.tools[1:]] == ([True] if wants_code else [])
