"""`skillyard migrate --to-standard` on design 004's packages, with fixtures written from the document's own examples
(tests/registry/fixtures/migrate/): METADATA.yml, the implementation in a code block, the legacy scripts/main.ts
layout, `permissions`, a batch over a folder of skills, `.legacy` backups by default; and the refusals, each leaving
the folder exactly as it was."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from skillyard.cli.main import skillyard_main
from skillyard.format import Policy, load_skill
from skillyard.registry import migrate
from skillyard.registry.migrate_004 import body_without, code_blocks, entry_block

# Each fixture's SKILL.md is stored as SKILL.md.fixture, so no skill discovery (`npx skills --full-depth` on this
# repository, an agent scanning the checkout) offers a test fixture as a skill; copy_fixture restores the name.
FIXTURES = Path(__file__).parent / "fixtures" / "migrate"
STORED_AS = "SKILL.md.fixture"
SKILLS = ("data-processor", "preference-recorder", "user-profile-updater", "weather-query")


def copy_fixture(source: Path, target: Path) -> Path:
    """Copy a fixture folder (or the folder of them) with each stored SKILL.md.fixture under its real name."""
    shutil.copytree(source, target)
    for stored in list(target.rglob(STORED_AS)):
        stored.rename(stored.with_name("SKILL.md"))
    return target


def copy(tmp_path: Path, rel: str) -> Path:
    return copy_fixture(FIXTURES / rel, tmp_path / Path(rel).name)


def run(*args: str) -> int:
    return skillyard_main(["migrate", "--to-standard", *args])


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): (b"<link>" if p.is_symlink() else p.read_bytes() if p.is_file() else b"<dir>")
            for p in sorted(folder.rglob("*"))}


def valid(folder: Path) -> None:
    errors = [f for f in load_skill(folder, Policy(strict=True)).findings if f.is_error or f.rule == "unknown-field"]
    assert errors == []


def manifest(folder: Path) -> dict:
    return yaml.safe_load((folder / "skill.yaml").read_text(encoding="utf-8"))


def frontmatter(folder: Path) -> dict:
    return yaml.safe_load((folder / "SKILL.md").read_text(encoding="utf-8").split("---\n")[1])


# the document's examples ----------------------------------------------------------------------------------------

def test_vcp_example_permissions_become_security(tmp_path, capsys):
    folder = copy(tmp_path, "weather-query")
    original = (folder / "SKILL.md").read_bytes()
    assert run(str(folder)) == 0
    assert "security.network_allowlist" in capsys.readouterr().out  # the note: true meant any host
    valid(folder)
    assert frontmatter(folder) == {"name": "weather-query", "description": "查询指定城市的天气信息"}
    data = manifest(folder)
    assert "permissions" not in data and data["security"] == {"network": "allowlist", "filesystem": "none"}
    assert data["type"] == "service" and data["version"] == "1.0.0" and data["ttl"] == 300
    assert (folder / "SKILL.md.legacy").read_bytes() == original


def test_abp_example_keeps_its_tool_declaration(tmp_path):
    folder = copy(tmp_path, "abp/weather-query")
    assert run(str(folder)) == 0
    valid(folder)
    data = manifest(folder)
    assert data["protocol"] == "abp" and data["abp"]["tools"][0]["name"] == "getWeather"
    assert (folder / "SKILL.md.legacy").is_file()


def test_the_code_block_moves_to_scripts_and_becomes_the_entry(tmp_path):
    folder = copy(tmp_path, "preference-recorder")
    block = entry_block((folder / "SKILL.md").read_text(encoding="utf-8"))
    assert run(str(folder)) == 0
    valid(folder)
    assert (folder / "scripts" / "execute.ts").read_text(encoding="utf-8") == block.code
    assert manifest(folder)["resources"] == {"entry": "scripts/execute.ts"}
    body = (folder / "SKILL.md").read_text(encoding="utf-8")
    assert "export async function execute" not in body and "](scripts/execute.ts)" in body
    assert "await execute({ preference" in body  # the usage example is documentation: it stays
    assert (folder / "SKILL.md.legacy").is_file()


def test_metadata_yml_is_converted_and_kept_as_legacy(tmp_path):
    folder = copy(tmp_path, "data-processor")
    metadata = (folder / "METADATA.yml").read_bytes()
    assert run(str(folder)) == 0
    valid(folder)
    assert not (folder / "METADATA.yml").exists()
    assert (folder / "METADATA.yml.legacy").read_bytes() == metadata
    data = manifest(folder)
    assert data["displayName"] == "数据处理器" and data["triggers"]["priority"] == 0.8
    assert data["security"]["network"] == "none" and data["resources"]["entry"] == "scripts/execute.ts"
    assert (folder / "scripts" / "execute.ts").is_file()


def test_a_skill_md_without_frontmatter_gets_it_from_metadata_yml(tmp_path, capsys):
    """Design 004's own shape: every field in METADATA.yml, SKILL.md only the body. The frontmatter is generated
    (and the output says so) rather than the package refused."""
    folder = tmp_path / "invoice-check"
    folder.mkdir()
    (folder / "METADATA.yml").write_text("name: invoice-check\ndescription: Checks invoices for arithmetic errors. "
                                         "Use when the user shares an invoice.\nversion: 1.2.0\n", encoding="utf-8")
    body = "# Invoice check\n\nAdd the lines and compare with the total.\n"
    (folder / "SKILL.md").write_text(body, encoding="utf-8")
    assert run(str(folder)) == 0
    out = capsys.readouterr().out
    assert "SKILL.md had no frontmatter: it was generated from METADATA.yml" in out
    valid(folder)
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    assert text.startswith("---\nname: invoice-check\n") and text.endswith(body)
    assert manifest(folder)["version"] == "1.2.0"


def test_a_skill_md_without_frontmatter_and_no_metadata_is_still_refused(tmp_path, capsys):
    folder = tmp_path / "bare"
    folder.mkdir()
    (folder / "SKILL.md").write_text("# Bare\n\nNo fields anywhere.\n", encoding="utf-8")
    assert run(str(folder)) != 0
    printed = capsys.readouterr()
    assert "does not start with a YAML frontmatter block" in printed.out + printed.err
    assert (folder / "SKILL.md").read_text(encoding="utf-8") == "# Bare\n\nNo fields anywhere.\n"


def test_the_legacy_main_ts_layout_gets_its_entry(tmp_path):
    folder = copy(tmp_path, "user-profile-updater")
    assert run(str(folder)) == 0
    valid(folder)
    assert manifest(folder)["resources"] == {"entry": "scripts/main.ts"}


def test_batch_over_a_folder_of_skills(tmp_path, capsys):
    root = tmp_path / "skills"
    copy_fixture(FIXTURES, root)
    shutil.rmtree(root / "abp")  # not a skill folder itself: a batch would skip it anyway
    assert run(str(root)) == 0
    out = capsys.readouterr().out
    for name in SKILLS:
        assert f"{root / name}: the migrated skill is valid" in out
        valid(root / name)
        assert (root / name / "SKILL.md.legacy").is_file()


def test_every_migrated_example_passes_the_standards_reference_validator(tmp_path):
    agentskills = Path(sys.executable).with_name("agentskills")
    for rel in (*SKILLS, "abp/weather-query"):
        folder = copy(tmp_path / rel.replace("/", "-"), rel)
        assert run(str(folder)) == 0
        done = subprocess.run([str(agentskills), "validate", str(folder)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, (rel, done.stdout + done.stderr)


def test_batch_skips_hidden_and_linked_folders(tmp_path):
    root = tmp_path / "skills"
    copy_fixture(FIXTURES / "weather-query", root / "weather-query")
    copy_fixture(FIXTURES / "preference-recorder", tmp_path / "outside" / "preference-recorder")
    os.symlink(tmp_path / "outside" / "preference-recorder", root / "linked")
    copy_fixture(FIXTURES / "data-processor", root / ".hidden")
    assert migrate.expand_batch(root) == [root / "weather-query"]
    assert migrate.expand_batch(root / "weather-query") == [root / "weather-query"]


def test_dry_run_and_no_backup(tmp_path):
    folder = copy(tmp_path, "data-processor")
    before = snapshot(folder)
    assert run(str(folder), "--dry-run") == 0
    assert snapshot(folder) == before
    assert run(str(folder), "--no-backup") == 0
    assert not list(folder.glob("*.legacy")) and (folder / "scripts" / "execute.ts").is_file()


def test_a_second_run_has_nothing_to_do(tmp_path, capsys):
    folder = copy(tmp_path, "preference-recorder")
    assert run(str(folder)) == 0
    before = snapshot(folder)
    capsys.readouterr()
    assert run(str(folder)) == 0
    assert "nothing to do" in capsys.readouterr().out and snapshot(folder) == before


# refusals: the file and the fix, exit 1, nothing written --------------------------------------------------------

def refused(capsys, folder: Path, *needles: str, outside: Path | None = None) -> None:
    before = snapshot(folder)
    outside_before = snapshot(outside) if outside else None
    assert run(str(folder)) == 1
    text = "".join(capsys.readouterr())
    assert "not converted" in text and "Traceback" not in text
    for needle in needles:
        assert needle in text
    assert snapshot(folder) == before
    if outside:
        assert snapshot(outside) == outside_before


def test_scripts_linked_out_of_the_folder_is_refused(tmp_path, capsys):
    folder = copy(tmp_path, "preference-recorder")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, folder / "scripts")
    refused(capsys, folder, "scripts", "link", outside=elsewhere)
    assert not (elsewhere / "execute.ts").exists()


def test_an_entry_file_that_is_a_link_is_refused(tmp_path, capsys):
    folder = copy(tmp_path, "preference-recorder")
    (folder / "scripts").mkdir()
    (tmp_path / "target.ts").write_text("x\n")
    os.symlink(tmp_path / "target.ts", folder / "scripts" / "execute.ts")
    refused(capsys, folder, "execute.ts")
    assert (tmp_path / "target.ts").read_text() == "x\n"


def test_an_existing_different_script_is_refused(tmp_path, capsys):
    folder = copy(tmp_path, "preference-recorder")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "execute.ts").write_text("export const other = 1;\n")
    refused(capsys, folder, "execute.ts", "differs")


@pytest.mark.parametrize("existing", ["Scripts/other.py", "scripts/Execute.ts", "scripts/EXECUTE.TS"])
def test_a_name_that_differs_only_by_case_is_refused(tmp_path, capsys, existing):
    folder = copy(tmp_path, "preference-recorder")
    (folder / existing).parent.mkdir(parents=True, exist_ok=True)
    (folder / existing).write_text("x\n")
    refused(capsys, folder, "only by letter case")


def test_two_implementation_blocks_are_refused(tmp_path, capsys):
    folder = copy(tmp_path, "preference-recorder")
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    (folder / "SKILL.md").write_text(text + "\n```js\nexport function execute() {}\n```\n", encoding="utf-8")
    refused(capsys, folder, "2 code blocks export `execute`")


def test_a_declared_entry_that_disagrees_is_refused(tmp_path, capsys):
    folder = copy(tmp_path, "preference-recorder")
    (folder / "skill.yaml").write_text('schema_version: "1.0"\nresources:\n  entry: scripts/other.ts\n')
    refused(capsys, folder, "resources.entry", "scripts/execute.ts")


@pytest.mark.parametrize("metadata,needles", [
    ("name: data-processor\ndescription: something else\n", ("METADATA.yml", "description", "manifest-conflict")),
    ("a: [unclosed\n", ("METADATA.yml", "not valid YAML")),
    ("a: &x [1, 1]\nb: [*x, *x]\n", ("METADATA.yml",)),
    ("k: 1\nk: 2\n", ("METADATA.yml", "appears twice")),
    ("- a list\n", ("METADATA.yml", "not a mapping")),
    ("permissions:\n  filesystem: read-write\n", ("permissions.filesystem", "read-only")),
    ("permissions:\n  shell: true\n", ("permissions.shell", "security")),
    ("permissions:\n  network: false\nsecurity:\n  network: allowlist\n", ("security.network", "manifest-conflict")),
])
def test_bad_metadata_yml_is_refused(tmp_path, capsys, metadata, needles):
    folder = copy(tmp_path, "data-processor")
    (folder / "METADATA.yml").write_text(metadata, encoding="utf-8")
    refused(capsys, folder, *needles)


def test_huge_or_linked_metadata_is_refused(tmp_path, capsys):
    folder = copy(tmp_path, "data-processor")
    (folder / "METADATA.yml").write_text("k: " + "x" * (5 * 1024 * 1024) + "\n")  # over the 4 MiB file limit
    refused(capsys, folder, "METADATA.yml", "larger than")
    (folder / "METADATA.yml").unlink()
    os.symlink("/etc/passwd", folder / "METADATA.yml")
    refused(capsys, folder, "METADATA.yml", "not a regular file")


def test_metadata_without_skill_md_is_refused(tmp_path, capsys):
    folder = copy(tmp_path, "data-processor")
    (folder / "SKILL.md").unlink()
    refused(capsys, folder, "METADATA.yml", "no SKILL.md")


def test_a_failing_write_puts_the_folder_back(tmp_path, capsys, monkeypatch):
    folder = copy(tmp_path, "data-processor")
    before = snapshot(folder)
    real = migrate.write_atomic

    def failing(path, data, **kwargs):
        if Path(path) == folder / "SKILL.md":  # the last write of the real run (the preview's copy is elsewhere)
            raise OSError(28, "No space left on device")
        return real(path, data, **kwargs)

    monkeypatch.setattr(migrate, "write_atomic", failing)
    assert run(str(folder)) == 1
    text = capsys.readouterr().out
    assert "put back as it was" in text and "No space left" in text
    assert snapshot(folder) == before  # no backups, no scripts/, no skill.yaml, METADATA.yml still there


# the code block finder ------------------------------------------------------------------------------------------

CODE = "export async function execute(p) {\n  return { output: p };\n}\n"


@given(before=st.text(alphabet="ab #\n\r\x0c\u2028`~-", max_size=80),
       after=st.text(alphabet="ab #\n\r\x0c\u2028-", max_size=80),
       fence=st.sampled_from(["```", "````", "~~~"]), lang=st.sampled_from(["ts", "typescript", "js", "javascript"]))
def test_the_block_is_found_and_only_it_is_replaced(before, after, fence, lang):
    before = before if before.endswith("\n") or not before else before + "\n"
    if code_blocks(before) or "`" in before or "~" in before:
        return  # a fence opened before would swallow ours: not this property
    body = f"{before}{fence}{lang}\n{CODE}{fence}\n{after}"
    block = entry_block(body)
    assert block is not None and block.code == CODE and block.suffix == ("ts" if lang[0] == "t" else "js")
    assert body_without(body, block) == before + block_pointer(block, body) + after


def block_pointer(block, body: str) -> str:
    newline = "\r\n" if "\r\n" in body else "\n"
    return f"The implementation is in [`{block.path}`]({block.path}) (`resources.entry` in skill.yaml).{newline}"


@given(st.text(max_size=300))
def test_code_blocks_never_fail_and_stay_inside_the_body(body):
    for block in code_blocks(body):
        assert 0 <= block.start < block.end <= len(body) and block.suffix in ("ts", "js")


def test_examples_and_indented_or_quoted_blocks_are_not_the_entry():
    assert entry_block("```ts\nconst r = await execute({});\n```\n") is None
    assert entry_block("    ```ts\n    export function execute() {}\n    ```\n") is None  # indented code, not a fence
    assert entry_block("```python\ndef execute(): pass\n```\n") is None


# permissions -> security ----------------------------------------------------------------------------------------

VALUES = st.one_of(st.booleans(), st.none(), st.sampled_from(["none", "allowlist", "read-only", "readonly", "write",
                                                             "off", "any"]), st.text(max_size=8),
                   st.lists(st.text(min_size=1, max_size=20), max_size=3), st.integers())


@given(st.dictionaries(st.sampled_from(["network", "filesystem", "hosts", "timeout_ms", "shell", "network_allowlist"]),
                       VALUES, max_size=4))
def test_permissions_become_a_valid_security_or_a_clear_refusal(permissions):
    from skillyard.errors import SkillyardError
    from skillyard.format.rules import schema_findings
    from skillyard.registry.migrate_004 import permissions_to_security

    try:
        security, _ = permissions_to_security(permissions, None, "skill.yaml")
    except SkillyardError as exc:
        assert exc.message.startswith("skill.yaml: `permissions") and "Nothing was changed" in exc.fix
        return
    problems = schema_findings({"name": "x", "description": "d", "security": security}, strict=True,
                               file="skill.yaml", key_lines={})
    # what the conversion itself decides is always valid; values copied as they were are checked like any other
    assert not [f for f in problems if f.field in ("security.network", "security.filesystem",
                                                   "security.network_allowlist")]
    assert set(security) <= {"network", "filesystem", "network_allowlist", "timeout_ms"}


def test_json_output_of_a_batch_lists_each_skill_with_its_notes(tmp_path, capsys):
    import json

    root = tmp_path / "skills"
    for name in ("weather-query", "preference-recorder"):
        copy_fixture(FIXTURES / name, root / name)
    assert run(str(root), "--json", "--dry-run") == 0
    report = json.loads(capsys.readouterr().out)
    by_name = {Path(item["folder"]).name: item for item in report["folders"]}
    assert set(by_name) == {"weather-query", "preference-recorder"}
    assert any("network_allowlist" in note for note in by_name["weather-query"]["notes"])
    assert "scripts/execute.ts" in by_name["preference-recorder"]["writes"]
    assert not any(item["applied"] for item in report["folders"]) and not (root / "weather-query" / "skill.yaml").exists()


def test_the_backups_migrate_keeps_are_never_published(tmp_path):
    """A `.legacy` backup left beside a migrated file is a warning for the author, not a file of the skill: the
    registry entry, the site and every install leave it out."""
    from skillyard.format.package import load_skill

    folder = tmp_path / "notes-helper"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: notes-helper\ndescription: Turns meeting notes into action items "
                                     "with owners and dates. Use when asked to summarise a meeting.\n---\n# Notes\n\n"
                                     "List each action item with its owner.\n", encoding="utf-8")
    (folder / "SKILL.md.legacy").write_text("old", encoding="utf-8")
    (folder / "references").mkdir()
    (folder / "references" / "guide.md.legacy").write_text("old", encoding="utf-8")
    pkg = load_skill(folder)
    published = [entry.path for entry in pkg.files]
    assert "SKILL.md" in published and not any(p.endswith(".legacy") for p in published), published
    backups = [f for f in pkg.findings if f.rule == "migration-backup"]
    assert sorted(f.file for f in backups) == ["SKILL.md.legacy", "references/guide.md.legacy"]
    assert all(f.severity == "warning" for f in backups)
