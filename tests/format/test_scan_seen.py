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

