"""The scan's memo of judged texts (`judge._seen`) is keyed by the class of the skill's name, not the name: a file
shipped in several skills is judged once. That is only right while no rule reads the name in any other way; the
source check below fails the day one does, so the key is looked at again."""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format.findings import Severity
from skillyard.format.scan import context, judge, precision

SCAN = Path(judge.__file__).parent
# The calls a skill name may be handed to: the scan's own entry points, the Context that keeps it, and the one
# pattern that classes it. A new callee (a helper that compares, slices or formats the name) fails the check.
PASSED_TO = {"scan_text", "_scan_text", "name_class", "Context", "_archive", "search", "lower"}
RULES = ("rules:\n  - id: ssh-key-exfil\n    patterns:\n"
         "      - pattern: requests.post($U, data=open(os.path.expanduser('~/.ssh/id_rsa')).read())\n")
PADDING = "".join(f"# note {n}: keep the rule list sorted by id\n" for n in range(80))  # over SEEN_MIN_CHARS


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def test_rules_read_a_skills_name_only_through_the_security_name_pattern():
    misuse = []
    for path in sorted(SCAN.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        parents.update({kw.value: call for call in ast.walk(tree) if isinstance(call, ast.Call)
                        for kw in call.keywords})
        for node in ast.walk(tree):
            named = (isinstance(node, ast.Name) and node.id == "skill_name") or \
                (isinstance(node, ast.Attribute) and node.attr == "skill_name")
            if not named or not isinstance(node.ctx, ast.Load):
                continue
            parent = parents.get(node)
            if isinstance(parent, ast.keyword):
                parent = parents.get(parent)
            if isinstance(parent, ast.Attribute) and parent.attr == "lower":  # `skill_name.lower()`
                parent = parents.get(parent)
            if isinstance(parent, ast.Call) and _callee(parent) in PASSED_TO:
                if _callee(parent) == "search" and "_SECURITY_NAME" not in ast.unparse(parent.func):
                    misuse.append(f"{path.name}:{node.lineno}")
                continue
            misuse.append(f"{path.name}:{node.lineno}")
    assert misuse == [], f"a rule reads the skill's name another way: widen judge.name_class's key ({misuse})"


@given(st.text(alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyz-KİSECUR0"), max_size=24))
@settings(max_examples=300, deadline=None)
def test_the_name_class_is_what_the_rules_ask_of_the_name(name):
    ctx = context.Context("", "SKILL.md", "markdown", skill_name=name)
    assert judge.name_class(name) == precision.security_skill(ctx)


def test_one_file_in_two_skills_is_judged_once_per_class_of_name(monkeypatch):
    monkeypatch.setattr(judge, "_seen", {})
    monkeypatch.setattr(judge, "_held", [0])
    calls = []
    real = judge._scan_text
    monkeypatch.setattr(judge, "_scan_text", lambda *a, **k: calls.append(k["skill_name"]) or real(*a, **k))
    text = RULES + PADDING

    def rules(name):
        return {f.rule: f.severity for f in judge.scan_text(text, "references/rules.yaml", skill_name=name)}

    assert rules("notes") == {"security-exfiltration": Severity.ERROR}
    assert rules("release-notes") == {"security-exfiltration": Severity.ERROR}  # the same class: from the memo
    assert calls == ["notes"]
    assert rules("skill-audit") == {"security-exfiltration": Severity.WARNING}  # a security skill: judged on its own
    assert rules("Vuln-Scanner") == {"security-exfiltration": Severity.WARNING}
    assert calls == ["notes", "skill-audit"]
    assert real(text, "references/rules.yaml", skill_name="release-notes") == \
        judge.scan_text(text, "references/rules.yaml", skill_name="release-notes")


def _skill(tmp_path, frontmatter: str, manifest: str | None):
    folder = tmp_path / "tool-skill"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: tool-skill\ndescription: Does things. Use when asked.\n{frontmatter}"
                                     "---\n# Tool\n\nRun scripts/run.sh.\n")
    (folder / "scripts" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    if manifest is not None:
        (folder / "skill.yaml").write_text(f'schema_version: "1.0"\n{manifest}')
    return folder


def test_the_homes_each_scan_is_given_are_the_ones_it_would_work_out(tmp_path, monkeypatch):
    """load_skill works out the skill's declared homes once and hands them to every scan: each must be what that
    scan would get from the data it was asked about (skill.yaml's value wins; a conflicting or 64-key document
    works them out again)."""
    from skillyard.format import package
    from skillyard.format.scan import skill_level, vendor

    given_to: dict[str, tuple] = {}
    scan_text, scan_skill = package.security.scan_text, skill_level.scan_skill

    def spy_text(text, file, **kw):
        given_to[file] = kw.get("homes", ())
        return scan_text(text, file, **kw)

    def spy_skill(data, *args, homes=None, **kw):
        given_to["(skill)"] = homes
        assert homes is None or homes == vendor.declared_homes(data)
        return scan_skill(data, *args, homes=homes, **kw)

    monkeypatch.setattr(package.security, "scan_text", spy_text)
    monkeypatch.setattr(package.scan_skill, "scan_skill", spy_skill)
    many = "".join(f"k{n}: v\n" for n in range(70))
    cases = [("homepage: https://a.example\n", None, True),
             ("homepage: https://a.example\n", "repository: https://b.example/x\n", True),
             ("homepage: https://a.example\n", "homepage: https://b.example\n", False),  # a conflict
             ("homepage: https://a.example\n", many, False)]  # over 64 keys
    for number, (frontmatter, manifest, reused) in enumerate(cases):
        given_to.clear()
        package_ = package.load_skill(_skill(tmp_path / str(number), frontmatter, manifest))
        manifest_data = package.parse_manifest((package_.folder / "skill.yaml").read_text())[0] if manifest else {}
        expected = vendor.declared_homes({**package_.data, **(manifest_data or {})})
        assert expected and given_to["scripts/run.sh"] == expected, (package_.data, given_to)
        assert (given_to["(skill)"] is not None) == reused
