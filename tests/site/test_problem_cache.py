"""The served-file problems kept between builds (`site/problem_cache.py`) answer exactly as the rules do."""

from __future__ import annotations

import json

from skillyard.site import problem_cache
from skillyard.site.page_cache import entry_digest
from skillyard.site.publish import archive_problems, skill_problems


def _skill(name: str, paths: list[str]) -> dict:
    return {"name": name, "description": "d", "files": [{"path": p, "size": 3, "sha256": "a" * 64} for p in paths]}


SKILLS = [_skill("good", ["SKILL.md", "scripts/run.py"]), _skill("page", ["SKILL.md", "index.html"]),
          _skill("bare", ["README.md"])]


def _ask(path, skills=SKILLS, rules=skill_problems):
    digests = {s["name"]: entry_digest(s) for s in skills}
    return problem_cache.all_problems(skills, digests, set(), rules, path)


def test_answers_match_the_rules_fresh_and_from_the_file(tmp_path):
    path = tmp_path / "problems.json"
    expected = ({s["name"]: skill_problems(s) for s in SKILLS}, {s["name"]: archive_problems(s) for s in SKILLS})
    assert expected[0]["page"] and expected[1]["bare"] and not expected[0]["good"]  # the cases differ
    assert _ask(path) == expected
    assert path.is_file()
    calls = []
    assert _ask(path, rules=lambda s: calls.append(s) or ["never"]) == expected  # every entry known: no rule run
    assert calls == []


def test_a_changed_entry_or_other_code_is_worked_out_again(tmp_path):
    path = tmp_path / "problems.json"
    _ask(path)
    changed = [SKILLS[0], _skill("page", ["SKILL.md", "notes.md"]), SKILLS[2]]
    problems, _ = _ask(path, skills=changed)
    assert problems["page"] == [] and problems["bare"] == skill_problems(SKILLS[2])
    data = json.loads(path.read_text(encoding="utf-8"))
    assert len(data["problems"]) == 3  # only this build's entries are kept
    data["fingerprint"] = "other code"
    path.write_text(json.dumps(data), encoding="utf-8")
    problems, _ = _ask(path, skills=changed, rules=lambda s: ["fresh"])
    assert set(map(tuple, problems.values())) == {("fresh",)}


def test_a_damaged_file_is_ignored(tmp_path):
    path = tmp_path / "problems.json"
    path.write_text("{not json", encoding="utf-8")
    assert _ask(path)[0] == {s["name"]: skill_problems(s) for s in SKILLS}
    path.write_text(json.dumps({"fingerprint": problem_cache.fingerprint(),
                                "problems": {f"{entry_digest(SKILLS[1])}:0": [[1], []]}}), encoding="utf-8")
    assert _ask(path)[0]["page"] == skill_problems(SKILLS[1])
