"""Per-skill JSON (issue 37 item 5): /api/skills/NAME.json and its index, checked against their schemas, stable
across builds, and holding what the skill's page shows."""

from __future__ import annotations

import json
import random
from pathlib import Path

import jsonschema
import pytest

from conftest import CONFIG, SKILLS
from skillyard.site import skill_api
from skillyard.site.builder import build_site

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def _validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _api(out: Path) -> dict[str, bytes]:
    folder = out.resolve() / "api" / "skills"
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _errors(validator, data) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(data)]


@pytest.mark.parametrize("site", ["built_site", "pointer_site"])
def test_every_document_and_the_index_match_their_schemas(site, request):
    out = request.getfixturevalue(site)[1]
    files = _api(out)
    registry = json.loads((out / "registry.json").read_text(encoding="utf-8"))
    names = sorted(s["name"] for s in registry["skills"])
    assert sorted(files) == sorted([f"{n}.json" for n in names] + ["index.json"])
    one, index = _validator("skill-api.schema.json"), _validator("skill-api-index.schema.json")
    for file, data in files.items():
        document = json.loads(data)
        assert _errors(index if file == "index.json" else one, document) == [], file
        assert data == (json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n").encode()
    listed = json.loads(files["index.json"])
    assert [e["name"] for e in listed["skills"]] == names
    assert [e["url"] for e in listed["skills"]] == [f"{n}.json" for n in names]
    assert listed["registry"] == registry["name"]


def test_the_schema_refuses_a_document_missing_a_field_or_with_an_unknown_one(built_site):
    document = json.loads(_api(built_site[1])["pdf-tools.json"])
    validator = _validator("skill-api.schema.json")
    assert _errors(validator, document) == []
    assert _errors(validator, {k: v for k, v in document.items() if k != "install"}) != []
    assert _errors(validator, {**document, "surprise": 1}) != []
    assert _errors(validator, {**document, "kind": "other"}) != []


def test_a_document_holds_what_the_page_shows(built_site):
    root, out, _ = built_site
    spec = next(s for s in SKILLS if s["name"] == "pdf-tools")
    document = json.loads(_api(out)["pdf-tools.json"])
    page = (out.resolve() / "skills" / "pdf-tools" / "index.html").read_text(encoding="utf-8")
    assert document["name"] == "pdf-tools" and document["kind"] == "own"
    assert document["title"] == spec.get("display_name", "pdf-tools")
    assert document["install"]["command"] == "skill install pdf-tools"
    assert document["install"]["pinned"] == f"skill install pdf-tools@{document['version']}"
    assert document["install"]["command"] in page and document["integrity"] in page
    assert document["publisher"] == {"kind": "author", "name": "Ada", "url": None, "page": "publishers/author-ada/"}
    assert document["license"] == {"id": "MIT", "source": "skill"}
    assert [i["name"] for i in document["inputs"]] == [i["name"] for i in spec["inputs"]]
    assert [f["path"] for f in document["files"]] == sorted(["SKILL.md", *spec.get("files", {})])
    assert all(f["raw_url"].startswith("https://raw.githubusercontent.com/example/registry/") for f in document["files"])
    assert document["upstream"] is None and document["verification"] is None
    assert document["page"] == "skills/pdf-tools/"


def test_a_pointer_document_states_its_pin_as_facts(pointer_site):
    _, out = pointer_site
    files = _api(out)
    registry = {s["name"]: s for s in json.loads((out / "registry.json").read_text(encoding="utf-8"))["skills"]}
    alpha = json.loads(files["alpha.json"])
    entry = registry["alpha"]
    assert alpha["kind"] == "pointer"
    assert alpha["publisher"]["kind"] == "repository" and alpha["publisher"]["name"] == entry["source"]["repository"]
    assert alpha["upstream"]["commit"] == entry["commit"] and alpha["upstream"]["repository"]
    assert alpha["verification"]["reviewed"] is False and alpha["verification"]["commit"] == entry["commit"]
    assert alpha["license"] == {"id": "MIT OR GPL-2.0-only", "source": "upstream"}
    own = json.loads(files["meeting-notes.json"])
    assert own["kind"] == "own" and own["verification"] is None


def test_two_builds_give_the_same_bytes(built_site, tmp_path):
    root, out, _ = built_site
    again = tmp_path / "again"
    build_site(root / "registry.json", root, again, config=CONFIG, work_dir=tmp_path / "work", use_cache=False)
    assert _api(again) == _api(out)


def test_the_bytes_do_not_depend_on_the_order_registry_json_lists_skills_or_keys(built_site):
    registry = json.loads((built_site[1] / "registry.json").read_text(encoding="utf-8"))
    first = skill_api.api_files(registry)
    shuffled = dict(reversed(list(registry.items())))
    shuffled["skills"] = [dict(reversed(list(s.items()))) for s in registry["skills"]]
    random.Random(7).shuffle(shuffled["skills"])
    assert skill_api.api_files(shuffled) == first


def test_a_registry_stated_licence_and_a_reviewed_pin_read_as_such():
    skill = {"name": "x", "description": "X.", "version": "0.0.1", "path": "skills/x", "commit": "a" * 40,
             "updated_at": "2026-01-01T00:00:00Z", "files": [], "integrity": "sha256-" + "0" * 64, "inventory": {},
             "license": "MIT", "source_url": "https://github.com/o/r", "verified": True,
             "verification": {"approved_by": "ada", "approved_at": "2026-02-03T04:05:06Z"},
             "source": {"repository": "o/r", "tracks": "main", "license_source": "registry"}}
    document = skill_api.skill_document({"name": "R", "skills": [skill]}, skill)
    assert document["license"] == {"id": "MIT", "source": "registry"}
    assert document["verification"]["reviewed"] is True
    assert document["verification"]["approved_by"] == "ada"
    assert document["verification"]["approved_at"] == "2026-02-03T04:05:06Z"
    assert _errors(_validator("skill-api.schema.json"), document) == []


def test_a_rebuild_makes_only_the_changed_documents_and_the_same_bytes(tmp_path, monkeypatch):
    """Once a site was built into the work folder, a rebuild dumps only the documents whose entry changed (the output
    keeps the others by key); every file still equals a build from scratch of the new registry.json."""
    from tests.site.conftest import write_registry

    from skillyard.site import staged

    monkeypatch.setattr(staged, "RACY_NS", 0)
    root, out, work = tmp_path / "repo", tmp_path / "out", tmp_path / "work"
    path = write_registry(root, SKILLS)
    for _ in range(2):
        build_site(path, root, out, config=CONFIG, work_dir=work)
    registry = json.loads(path.read_text(encoding="utf-8"))
    registry["skills"][0]["description"] += " Now with more."
    changed = registry["skills"][0]["name"]
    path.write_text(json.dumps(registry, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    made: list[str] = []
    real = skill_api._document_bytes
    monkeypatch.setattr(skill_api, "_document_bytes",
                        lambda reg, skill, *rest: made.append(skill["name"]) or real(reg, skill, *rest))
    build_site(path, root, out, config=CONFIG, work_dir=work)
    assert made == [changed]
    monkeypatch.undo()
    monkeypatch.setattr(staged, "RACY_NS", 0)
    build_site(path, root, tmp_path / "scratch", config=CONFIG, work_dir=tmp_path / "work2")  # from scratch
    expected = _api(tmp_path / "scratch")
    assert _api(out) == expected
    monkeypatch.setattr(skill_api, "_document_bytes",
                        lambda reg, skill, *rest: made.append(skill["name"]) or real(reg, skill, *rest))
    assert b"Now with more." in _api(out)[f"{changed}.json"] and b"Now with more." in _api(out)["index.json"]
    made.clear()
    build_site(path, root, out, config=CONFIG, work_dir=work)  # nothing changed: nothing made, bytes the same
    assert made == [changed] or made == []  # the spare tree (one build behind) catches up once
    assert _api(out) == expected
