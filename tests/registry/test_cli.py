"""The `skillyard validate`, `build` and `migrate` commands: output, JSON, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from skillyard.cli.main import skillyard_main
from skillyard.format.schemas import schema_errors

from .conftest import git


def run(capsys, *argv):
    code = skillyard_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_clean_registry(repo, capsys):
    repo.add_skill("alpha")
    code, out, _ = run(capsys, "validate", "--root", str(repo.root), str(repo.root / "skills"))
    assert code == 0
    assert "1 skill(s): 1 valid, 0 invalid; 0 error(s), 0 warning(s)" in out


def test_validate_reports_file_line_rule_and_fix(repo, capsys):
    repo.write("skills/broken/SKILL.md", "---\nname: Broken\ndescription: x\n---\n")
    code, out, _ = run(capsys, "validate", "--root", str(repo.root), str(repo.root / "skills"))
    assert code == 1
    assert "FAIL skills/broken (Broken)" in out
    assert "SKILL.md:2 [name-format] `name`" in out
    assert "fix: Use 1-64 lowercase letters" in out
    assert "[policy-required-field] `version`" in out


def test_validate_json_matches_its_schema(repo, capsys):
    repo.add_skill("alpha")
    repo.write("skills/broken/SKILL.md", "---\nname: broken\ndescription: x\nfoo: 1\n---\n")
    code, out, _ = run(capsys, "validate", "--root", str(repo.root), "--json", str(repo.root / "skills"))
    report = json.loads(out)
    assert code == 1
    assert schema_errors("validate-report", report) == []
    assert report["summary"] == {"skills": 2, "valid": 1, "invalid": 1, "errors": 4, "warnings": 1}  # + not-portable
    assert report["rule_counts"]["warning:unknown-field"] == 1
    broken = next(s for s in report["skills"] if s["name"] == "broken")
    assert {"rule": "unknown-field", "severity": "warning", "file": "SKILL.md", "line": 4, "field": "foo"}.items() \
        <= broken["findings"][-1].items()


def test_lenient_turns_tolerated_rules_into_warnings(repo, capsys):
    repo.write("skills/folder-name/SKILL.md", "---\nname: other\ndescription: 'Use when: x'\nargument-hint: <f>\n"
               'version: "1.0.0"\nlicense: MIT\ntags: [a]\n---\n')
    strict_code, _, _ = run(capsys, "validate", "--root", str(repo.root), "--strict", str(repo.root / "skills"))
    lenient_code, out, _ = run(capsys, "validate", "--root", str(repo.root), "--lenient", str(repo.root / "skills"))
    assert (strict_code, lenient_code) == (1, 0)
    assert "warning" in out and "[name-folder-mismatch]" in out and "[angle-bracket]" in out


def test_validate_names_skill_yaml_and_its_line_for_a_bad_skill_yaml_value(repo, capsys):
    """A bad version, tags, inputs or mcp_deps in skill.yaml is reported against skill.yaml and the key's line
    (text and --json), not against SKILL.md without a line."""
    folder = repo.add_skill("alpha")
    (folder / "skill.yaml").write_text(
        'schema_version: "1.0"\nversion: 1.0\ntags:\n  - Bad Tag\ninputs:\n  - name: n\n    type: number\n'
        "    default: ten\nmcp_deps:\n  - tool: ocr\n", encoding="utf-8")
    code, out, _ = run(capsys, "validate", "--root", str(repo.root), str(repo.root / "skills"))
    assert code == 1
    for line, rule in ((2, "version-semver"), (3, "tags-format"), (5, "inputs-default-type"),
                       (9, "mcp-deps-format")):
        assert f"skill.yaml:{line} [{rule}]" in out, out
    code, out, _ = run(capsys, "validate", "--root", str(repo.root), "--json", str(repo.root / "skills"))
    (skill,) = json.loads(out)["skills"]
    where = {f["rule"]: (f.get("file"), f.get("line")) for f in skill["findings"]}
    assert where["version-semver"] == ("skill.yaml", 2)
    assert where["tags-format"] == ("skill.yaml", 3)
    assert where["inputs-default-type"] == ("skill.yaml", 5)
    assert where["mcp-deps-format"] == ("skill.yaml", 9)


def test_validate_changed_since_only_checks_touched_skills(repo, capsys):
    repo.add_skill("alpha")
    repo.write("skills/legacy/SKILL.md", "---\nname: legacy\n---\n")  # already broken on main
    repo.commit()
    git(repo.root, "checkout", "-q", "-b", "pr")
    repo.add_skill("beta")
    repo.write("tools/x.py", "print(1)\n")
    repo.commit()
    code, out, _ = run(capsys, "validate", "--root", str(repo.root), "--changed-since", "main", "--json")
    report = json.loads(out)
    assert code == 0
    assert [s["path"] for s in report["skills"]] == ["skills/beta"]
    assert report["changed_paths"] == ["skills/beta/SKILL.md", "skills/beta/skill.yaml", "tools/x.py"]


def test_validate_changed_since_catches_a_name_taken_elsewhere(repo, capsys):
    repo.add_skill("alpha", group="a/")
    repo.commit()
    git(repo.root, "checkout", "-q", "-b", "pr")
    repo.add_skill("alpha", group="b/")
    repo.commit()
    code, out, _ = run(capsys, "validate", "--root", str(repo.root), "--changed-since", "main")
    assert code == 1 and "[duplicate-name]" in out and "skills/a/alpha" in out


def test_validate_never_loads_the_build_machinery(repo):
    """validate shares only `registry/collect.py` with the build: its history, stamps and output code stay unloaded."""
    repo.add_skill("alpha")
    repo.commit()
    code = ("import sys\nfrom skillyard.cli.main import skillyard_main\n"
            f"assert skillyard_main(['validate', '--root', {str(repo.root)!r}, '--changed-since', 'HEAD']) == 0\n"
            "print(sorted(m for m in sys.modules if m.split('.')[-1] in ('build', 'dirsig', 'rendered')"
            " and m.startswith('skillyard.registry')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_usage_errors_exit_2():
    result = subprocess.run([sys.executable, "-m", "skillyard.cli.main", "validate", "--strict", "--lenient"],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "not allowed with argument" in result.stderr


def test_unknown_path_is_a_clear_error(repo, capsys):
    code, _, err = run(capsys, "validate", "--root", str(repo.root), str(repo.root / "nope"))
    assert code == 1 and "no such folder" in err and "fix:" in err


def test_build_check_and_write(repo, capsys):
    repo.add_skill("alpha")
    repo.commit()
    code, out, _ = run(capsys, "build", "--root", str(repo.root), "--check")
    assert code == 1
    code, out, _ = run(capsys, "build", "--root", str(repo.root))
    assert code == 0 and "built 1 skill(s)" in out
    first = (repo.root / "registry.json").read_bytes()
    code, out, _ = run(capsys, "build", "--root", str(repo.root), "--check")
    assert code == 0 and "up to date" in out
    run(capsys, "build", "--root", str(repo.root), "--no-cache")
    assert (repo.root / "registry.json").read_bytes() == first


def test_build_failure_writes_nothing(repo, capsys):
    repo.write("skills/bad/SKILL.md", "no frontmatter\n")
    code, _, err = run(capsys, "build", "--root", str(repo.root))
    assert code == 1
    assert "[frontmatter-missing]" in err and "nothing was written" in err
    assert not (repo.root / "registry.json").exists()


def test_build_out_and_json(repo, capsys, tmp_path):
    repo.add_skill("alpha")
    repo.commit()
    out_file = tmp_path / "dist" / "reg.json"
    code, out, _ = run(capsys, "build", "--root", str(repo.root), "--out", str(out_file), "--json")
    summary = json.loads(out)
    assert code == 0 and summary["ok"] and summary["skills"] == 1
    assert out_file.exists() and (out_file.parent / "index.json").exists()


# migrate ---------------------------------------------------------------------------------------------------------

INVOICE_MANIFEST = """\
schema_version: "1.0"
name: invoice-processor
version: 1.2.0
description: "处理发票：OCR识别、结构化提取、入账到知识库"
tags: [finance, document, ocr]
author: sga
license: MIT
homepage: https://github.com/sga/invoice-processor
system_prompt: |
  你是一个专业的发票处理助手。
  将数据存入指定知识库 collection（{{inputs.target_collection}}），
  金额超过 {{inputs.confirm_threshold}} 元时要求二次确认。
capabilities:
  - read-file
  - http-request
mcp_deps:
  - tool: ocr.recognize
    required: true
    description: "发票图片/PDF文字识别"
  - tool: sga_rag.upload
    required: true
  - tool: sga_rag.search
    required: false
inputs:
  - name: target_collection
    type: string
    required: false
    default: invoices
  - name: confirm_threshold
    type: number
    required: false
    default: 10000
  - name: output_language
    type: enum
    enum: [zh-CN, en-US]
    default: zh-CN
"""


@pytest.fixture
def legacy(tmp_path):
    folder = tmp_path / "invoice-processor"
    folder.mkdir()
    (folder / "skill.yaml").write_text(INVOICE_MANIFEST.replace("version: 1.2.0", 'version: "1.2.0"'), encoding="utf-8")
    return folder


def test_migrate_dry_run_shows_the_diff_and_writes_nothing(legacy, capsys):
    code, out, _ = run(capsys, "migrate", str(legacy), "--dry-run")
    assert code == 0
    assert "+++ b/SKILL.md" in out and "+name: invoice-processor" in out and "+++ b/skill.yaml" in out
    assert "would be valid" in out
    assert sorted(p.name for p in legacy.iterdir()) == ["skill.yaml"]


def test_migrate_writes_a_strictly_valid_skill(legacy, capsys):
    from skillyard.format import Policy, load_skill

    code, out, _ = run(capsys, "migrate", "--to-standard", str(legacy))
    assert code == 0, out
    assert sorted(p.name for p in legacy.iterdir()) == ["SKILL.md", "skill.yaml", "skill.yaml.legacy"]
    assert "system_prompt" not in (legacy / "skill.yaml").read_text(encoding="utf-8")
    pkg = load_skill(legacy, Policy(strict=True, required_fields=("version", "license", "tags")))
    assert pkg.valid, pkg.findings
    assert pkg.data["inputs"][1]["default"] == 10000 and pkg.data["mcp_deps"][0]["tool"] == "ocr.recognize"
    assert "{{inputs.target_collection}}" in pkg.body and pkg.body.lstrip().startswith("你是")


def test_migrate_reports_what_still_needs_fixing(tmp_path, capsys):
    folder = tmp_path / "invoice-processor"
    folder.mkdir()
    (folder / "skill.yaml").write_text(INVOICE_MANIFEST.replace("version: 1.2.0", "version: 1.2"), encoding="utf-8")
    code, out, _ = run(capsys, "migrate", str(folder), "--json")
    payload = json.loads(out)
    # lenient-valid before and after; `version: 1.2` is the author's to fix: written, listed, exit 3 (not 1)
    assert code == 3 and payload["applied"] is True and payload["status"] == "converted"
    assert [f["rule"] for f in payload["remaining"]] == ["version-semver"]


def test_migrate_lowercase_skill_md(tmp_path, capsys):
    from .conftest import skill_text

    folder = tmp_path / "alpha"
    folder.mkdir()
    (folder / "skill.md").write_text(skill_text("alpha"))
    code, out, _ = run(capsys, "migrate", str(folder))
    assert code == 0 and "rename skill.md -> SKILL.md" in out
    assert (folder / "SKILL.md").exists() and not (folder / "skill.md").exists()
