import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from conftest import make_skill
from skillyard.cli.main import skill_main
from skillyard.format import Policy, load_skill
from skillyard.runtime.prompt import USAGE


def run(capsys, *argv):
    code = skill_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_init_creates_a_strictly_valid_skill(tmp_path, capsys):
    code, out, _ = run(capsys, "init", "pdf-tools", "--description", "Fill and merge PDF forms. Use when a PDF form "
                       "must be completed.", "--tags", "pdf,documents", "--author", "octocat", "--capability",
                       "read-file", "--with-scripts", "--dir", str(tmp_path / "skills"), "--version", "1.2.3")
    assert code == 0, out
    folder = tmp_path / "skills" / "pdf-tools"
    package = load_skill(folder, Policy(strict=True, required_fields=("version", "license", "tags")))
    assert package.valid, [f.to_dict() for f in package.findings]
    assert package.data["version"] == "1.2.3" and package.data["tags"] == ["pdf", "documents"]
    assert package.data["capabilities"] == ["read-file"]
    assert sorted(p.name for p in folder.iterdir()) == ["SKILL.md", "scripts", "skill.yaml"]
    front = load_skill(folder, Policy(strict=True))
    assert not [f for f in front.findings if f.rule == "not-portable"]
    skill_md = (folder / "SKILL.md").read_text(encoding="utf-8")
    assert "version" not in skill_md.split("---")[1] and "[" not in skill_md.split("---")[1]
    assert (folder / "skill.yaml").read_text(encoding="utf-8").startswith('schema_version: "1.0"\nversion: "1.2.3"\n')
    result = subprocess.run([sys.executable, "scripts/pdf_tools.py", "--help"], cwd=folder, capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 0 and "Fill and merge PDF forms" in result.stdout
    from skillyard.cli.main import skillyard_main

    assert skillyard_main(["validate", "--strict", str(folder)]) == 0
    code, _, err = run(capsys, "init", "pdf-tools", "--dir", str(tmp_path / "skills"))
    assert code == 1 and "already exists" in err


def test_init_defaults_are_valid_and_bad_names_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, _ = run(capsys, "init", "tiny")
    assert code == 0
    package = load_skill(tmp_path / "tiny", Policy(strict=True, required_fields=("version", "license", "tags")))
    # the one thing left to the author: the placeholder description, refused until it is written
    assert [f.rule for f in package.findings if f.is_error] == ["placeholder-description"]
    code, _, err = run(capsys, "init", "Bad_Name")
    assert code == 2 and "invalid skill name" in err
    assert not (tmp_path / "Bad_Name").exists()


def test_evolve_keeps_sequential_notes_and_never_touches_skill_md(tmp_path, capsys, monkeypatch, home):
    folder = make_skill(home / ".agents" / "skills", "notes-demo")
    before = (folder / "SKILL.md").read_bytes()
    monkeypatch.chdir(tmp_path)
    for i in (1, 2, 3):
        code, out, err = run(capsys, "evolve", "add", "notes-demo", "--title", f"Lesson {i}", "--content",
                             f"Content {i}", "--trigger", "a failure", "--json")
        assert code == 0, err
        assert json.loads(out)["id"] == f"evo-00{i}"
    code, out, _ = run(capsys, "evolve", "list", "notes-demo", "--json")
    document = json.loads(out)
    assert [e["id"] for e in document["entries"]] == ["evo-001", "evo-002", "evo-003"]
    assert document["skill"] == "notes-demo" and document["entries"][0]["trigger"] == "a failure"
    assert (folder / "SKILL.md").read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == ["SKILL.md", "evolution.json"]
    (folder / "evolution.json").write_text('{"schema_version": "1.0", "skill": "x", "entries": [{"id": "e1"}]}')
    code, _, err = run(capsys, "evolve", "list", "notes-demo")
    assert code == 1 and "evolution.json" in err
    code, _, err = run(capsys, "evolve", "list", "no-such-skill")
    assert code == 1 and "no-such-skill" in err


def test_validate_names_unsupported_capability(tmp_path, capsys):
    skill = make_skill(tmp_path, "gpu-job", extra="capabilities: [read-file, gpu-compute]\n")
    code, out, _ = run(capsys, "validate", str(skill), "--target", "claude-code", "--json")
    report = json.loads(out)
    assert code == 1 and report["ok"] is False
    (finding,) = [f for f in report["findings"] if f["rule"] == "capability-unsupported"]
    assert "gpu-compute" in finding["message"] and finding["field"] == "capabilities"
    code, out, _ = run(capsys, "validate", str(skill))
    assert code == 0 and "gpu-job: valid" in out
    code, _, err = run(capsys, "validate", str(skill), "--target", "vim")
    assert code == 1 and "unknown target" in err


def test_emit_and_adapter_list(tmp_path, capsys, hello):
    code, out, _ = run(capsys, "emit", str(hello), "--target", "anthropic-api", "--out", str(tmp_path / "o"), "--json")
    assert code == 0
    files = sorted(os.path.basename(p) for p in json.loads(out)["files"])
    assert files == ["system.md", "tools.json"]
    tools = json.loads((tmp_path / "o" / "tools.json").read_text())
    assert [t["name"] for t in tools] == ["read_file", "code_interpreter", "read_skill_file"]
    code, out, _ = run(capsys, "adapter", "list", "--json")
    table = {t["name"]: t for t in json.loads(out)["targets"]}
    assert table["opencode"]["user_dir"] == "~/.agents/skills"  # OpenCode reads ~/.agents/skills: no second copy
    assert table["opencode"]["source"].startswith("https://opencode.ai/")
    assert table["claude-code"]["capabilities"]["execute-code"] == "Bash"
    assert table["gemini-api"]["kind"] == "api"


def test_prompt_and_read_commands(tmp_path, capsys, monkeypatch):
    root = tmp_path / "root"
    make_skill(root, "alpha", "Alpha & friends.")
    make_skill(root, "secret-ops", "Hidden from reviewers.")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "prompt", "--root", str(root))
    assert code == 0
    assert out == (USAGE + "\n<available_skills>\n<skill>\n<name>\nalpha\n</name>\n<description>\nAlpha &amp; friends.\n"
                   f"</description>\n<location>\n{root}/alpha/SKILL.md\n</location>\n</skill>\n<skill>\n<name>\n"
                   "secret-ops\n</name>\n<description>\nHidden from reviewers.\n</description>\n<location>\n"
                   f"{root}/secret-ops/SKILL.md\n</location>\n</skill>\n</available_skills>\n")
    rules = tmp_path / "rules.toml"
    rules.write_text('[agents.reviewer.skills]\n"secret-*" = "deny"\n', encoding="utf-8")
    monkeypatch.setenv("SKILL_PERMISSIONS", str(rules))
    code, out, _ = run(capsys, "prompt", "--root", str(root), "--agent", "reviewer", "--format", "json", "--report")
    data = json.loads(out)
    assert [s["name"] for s in data["skills"]] == ["alpha"]
    assert data["report"]["counts"]["skills"] == 2 and data["report"]["index_hash"].startswith("sha256-")
    code, out, _ = run(capsys, "read", "alpha", "SKILL.md", "--root", str(root))
    assert code == 0 and out.startswith("---\nname: alpha")
    code, _, err = run(capsys, "read", "alpha", "../secret-ops/SKILL.md", "--root", str(root))
    assert code == 1 and "'..'" in err
    code, _, err = run(capsys, "read", "secret-ops", "SKILL.md", "--root", str(root), "--agent", "reviewer")
    assert code == 1 and "no available skill" in err


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_doctor_reports_edits_and_unreachable_services(tmp_path, capsys, home, hello, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "install", str(hello), "--target", "claude-code", "--skip-deps-check")
    assert code == 0, err
    code, out, _ = run(capsys, "doctor", "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] is True
    assert any(f["check"] == "installed" and f["status"] == "ok" for f in report["findings"])
    canonical = home / ".agents" / "skills" / "hello-tool"
    (canonical / "scripts" / "hello.py").write_text("print('changed')\n")
    (canonical / "references" / "notes.md").unlink()
    (canonical / "extra.txt").write_text("new\n")
    port = _closed_port()
    (home / ".skillcli").mkdir(exist_ok=True)
    config = home / ".skillcli" / "config.yaml"
    config.write_text(f"sources:\n  - name: dead\n    url: http://127.0.0.1:{port}/registry.json\n"
                      f"mcp_hub:\n  endpoint: http://127.0.0.1:{port}\n  timeout: 500\nhttp:\n  retries: 0\n",
                      encoding="utf-8")
    code, out, _ = run(capsys, "doctor", "--json")
    report = json.loads(out)
    assert code == 1 and report["ok"] is False
    (skill,) = [f for f in report["findings"] if f["check"] == "installed"]
    assert skill["edited"] == ["scripts/hello.py"] and skill["missing"] == ["references/notes.md"]
    assert skill["added"] == ["extra.txt"] and "skill install hello-tool --force" in skill["fix"]
    statuses = {f["check"]: f["status"] for f in report["findings"] if f["check"] in ("source", "mcp-hub")}
    assert statuses == {"source": "error", "mcp-hub": "error"}
    assert all(f.get("fix") for f in report["findings"] if f["status"] == "error")


def test_doctor_flags_a_broken_config(capsys, home):
    (home / ".skillcli").mkdir()
    (home / ".skillcli" / "config.yaml").write_text("sources: [unclosed\n", encoding="utf-8")
    code, out, _ = run(capsys, "doctor", "--json")
    report = json.loads(out)
    assert code == 1 and report["findings"][0]["check"] == "config" and report["findings"][0]["status"] == "error"


def _skill_with_inputs(parent):
    folder = parent / "greet"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: greet\ndescription: Greets a team. Use when greeting.\n---\n"
                                     "Say hello to {{inputs.team}} in {{ inputs.lang }}.\n", encoding="utf-8")
    (folder / "skill.yaml").write_text('schema_version: "1.0"\nversion: 1.0.0\ninputs:\n'
                                       "  - name: team\n    type: string\n    default: core\n"
                                       "  - name: lang\n    type: string\n    required: true\n", encoding="utf-8")
    return folder


def test_emit_renders_inputs_from_the_command_line_config_and_defaults(tmp_path, capsys):
    skill = _skill_with_inputs(tmp_path / "src")
    code, _, _ = run(capsys, "emit", str(skill), "--target", "openai", "--out", str(tmp_path / "api"),
                     "--input", "lang=fr", "--input", "team=ops")
    assert code == 0
    system = (tmp_path / "api" / "system.md").read_text(encoding="utf-8")
    assert "Say hello to ops in fr." in system and "{{" not in system
    # The per-skill config fills what --input does not; the default fills the rest.
    home = Path(os.environ["SKILLCLI_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("inputs:\n  greet:\n    lang: de\n", encoding="utf-8")
    code, _, _ = run(capsys, "emit", str(skill), "--target", "agents", "--out", str(tmp_path / "dir"))
    assert code == 0
    copied = (tmp_path / "dir" / "greet" / "SKILL.md").read_text(encoding="utf-8")
    assert copied.endswith("Say hello to core in de.\n")
    assert (skill / "SKILL.md").read_text(encoding="utf-8").endswith("{{ inputs.lang }}.\n")  # source untouched


def test_emit_refuses_missing_or_unknown_inputs_and_writes_nothing(tmp_path, capsys):
    skill = _skill_with_inputs(tmp_path / "src")
    for extra, words in (([], "required input `lang`"), (["--input", "lang=x", "--input", "nope=1"],
                                                           "no input named nope")):
        code, out, err = run(capsys, "emit", str(skill), "--target", "agents", "--out", str(tmp_path / "o"), *extra)
        assert code != 0 and words in out + err and "Traceback" not in out + err
        assert not (tmp_path / "o").exists()
