"""Behaviour of skills/json-schema-check/scripts/json_check.py."""

from __future__ import annotations

import json

SCHEMA = {
    "$defs": {"port": {"type": "integer", "minimum": 1, "maximum": 65535}},
    "type": "object",
    "required": ["name", "port"],
    "properties": {
        "name": {"type": "string", "minLength": 2, "pattern": "^[a-z]+$"},
        "port": {"$ref": "#/$defs/port"},
        "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "uniqueItems": True},
        "mode": {"oneOf": [{"const": "fast"}, {"const": "safe"}]},
    },
    "additionalProperties": False,
    "dependentRequired": {"port": ["name"]},
    "x-note": "ignored",
}


def check(run, tmp_path, docs: dict[str, str], *args):
    for name, text in docs.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    return run("json-schema-check", "json_check.py", *docs, "--schema", "schema.json", "--json", *args, cwd=tmp_path)


def test_valid_document_passes_and_unsupported_keywords_are_named(run, tmp_path):
    done = check(run, tmp_path, {"ok.json": '{"name": "web", "port": 8080.0, "tags": ["a"], "mode": "safe"}'})
    assert done.returncode == 0, done.stdout
    report = json.loads(done.stdout)
    assert report["valid"] is True
    assert report["unsupported_keywords"] == ["dependentRequired"]


def test_every_violation_has_a_pointer(run, tmp_path):
    done = check(run, tmp_path, {"bad.json": '{"name": "X", "port": "80", "tags": ["a", "a", "c"], "more": 1}'})
    assert done.returncode == 1
    (doc,) = json.loads(done.stdout)["documents"]
    found = {(e["path"], e["message"].split(" ")[0]) for e in doc["errors"]}
    assert ("/name", "shorter") in found
    assert any(p == "/name" and "pattern" in e["message"] for e in doc["errors"] for p in [e["path"]])
    assert ("/port", "expected") in found
    assert ("/tags/1", "duplicate") in found
    assert ("/tags/2", '"c"') in found
    assert ("/more", "property") in found


def test_one_of_bool_vs_int_and_missing_required(run, tmp_path):
    done = check(run, tmp_path, {"d.json": '{"port": true, "mode": "turbo"}'})
    (doc,) = json.loads(done.stdout)["documents"]
    messages = {e["path"]: e["message"] for e in doc["errors"]}
    assert "missing required property 'name'" in messages["/"]
    assert messages["/port"] == "expected integer, got boolean"
    assert "matches 0" in messages["/mode"]


def test_syntax_errors_duplicates_and_jsonl(run, tmp_path):
    (tmp_path / "dup.json").write_text('{"a": 1, "a": 2}', encoding="utf-8")
    (tmp_path / "comma.json").write_text('{"a":\n 1,\n}', encoding="utf-8")
    (tmp_path / "rows.jsonl").write_text('{"name": "ab", "port": 1}\n\n{"name": "cd", "port": 0}\n', encoding="utf-8")
    done = run("json-schema-check", "json_check.py", "dup.json", "comma.json", cwd=tmp_path)
    assert done.returncode == 1
    assert "FAIL  dup.json: duplicate key 'a'" in done.stdout
    assert "FAIL  comma.json: line 3, column 1" in done.stdout
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    done = run("json-schema-check", "json_check.py", "rows.jsonl", "--jsonl", "--schema", "schema.json", cwd=tmp_path)
    assert done.returncode == 1
    assert "ok    rows.jsonl:1" in done.stdout
    assert "FAIL  rows.jsonl:3 at /port: 0 is less than the minimum 1" in done.stdout


def test_unusable_schema_exits_2(run, tmp_path):
    (tmp_path / "d.json").write_text("{}", encoding="utf-8")
    (tmp_path / "s.json").write_text('{"$ref": "https://example.com/s.json"}', encoding="utf-8")
    done = run("json-schema-check", "json_check.py", "d.json", "--schema", "s.json", cwd=tmp_path)
    assert done.returncode == 2 and "local references" in done.stderr
    (tmp_path / "s.json").write_text("[1,", encoding="utf-8")
    done = run("json-schema-check", "json_check.py", "d.json", "--schema", "s.json", cwd=tmp_path)
    assert done.returncode == 2 and "s.json" in done.stderr
