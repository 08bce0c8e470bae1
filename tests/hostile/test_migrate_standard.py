"""Hostile and mistaken input to `skillyard migrate --to-standard`: refused with the file and the fix, exit 1, and the
folder left exactly as it was (nothing half-written); never a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillyard.cli.main import skillyard_main

LEGACY = '---\nname: {name}\ndescription: Plans tasks.\nversion: "1.0.0"\ntags: [a, b]\n---\n# Body\n'


def make(root: Path, name: str = "planner", text: str | None = None, manifest: str | None = None) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "SKILL.md").write_text((text or LEGACY).format(name=name), encoding="utf-8")
    if manifest is not None:
        (folder / "skill.yaml").write_text(manifest, encoding="utf-8")
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() and not p.is_symlink() else b"<link>")
            for p in sorted(folder.rglob("*"))}


def refused(capsys, folder: Path, *needles: str) -> None:
    before = snapshot(folder)
    assert skillyard_main(["migrate", "--to-standard", str(folder)]) == 1
    out, err = capsys.readouterr()
    text = out + err
    assert "not converted" in text and "Traceback" not in text
    for needle in needles:
        assert needle in text
    assert snapshot(folder) == before


def test_conflict_with_the_existing_skill_yaml_is_refused(tmp_path, capsys):
    folder = make(tmp_path, manifest='schema_version: "1.0"\nversion: "2.0.0"\n')
    refused(capsys, folder, "skill.yaml", "version", "manifest-conflict", "Nothing was changed")


def test_unknown_future_schema_version_is_refused(tmp_path, capsys):
    folder = make(tmp_path, manifest='schema_version: "2.0"\n')
    refused(capsys, folder, "newer major version", "Upgrade Skillyard")


@pytest.mark.parametrize("manifest", ["a: [unclosed\n", "a: &x 1\nb: *x\n", "- a list\n", "k: 1\nk: 2\n"])
def test_broken_skill_yaml_is_refused(tmp_path, capsys, manifest):
    refused(capsys, make(tmp_path, manifest=manifest), "skill.yaml")


@pytest.mark.parametrize("text", [
    "---\nname: {name}\ndescription: x\n",  # never closes
    "no frontmatter at all\n",
    "---\nname: {name}\nname: again\n---\nbody\n",
    "---\nname: {name}\nbomb: &a [x, x]\nmore: [*a, *a]\n---\nbody\n",
    "---\nname: {name}\nv: !!python/object:os.system ls\n---\nbody\n",
])
def test_broken_or_hostile_frontmatter_is_refused(tmp_path, capsys, text):
    refused(capsys, make(tmp_path, text=text), "SKILL.md")


def test_not_utf8_and_oversized_and_linked_skill_md_are_refused(tmp_path, capsys):
    bad = make(tmp_path, "bad")
    (bad / "SKILL.md").write_bytes(b"---\nname: bad\ndescription: \xff\n---\n")
    refused(capsys, bad, "not UTF-8")
    big = make(tmp_path, "big")
    with open(big / "SKILL.md", "ab") as handle:
        handle.truncate(64 * 1024 * 1024)  # sparse
    refused(capsys, big, "larger than")
    linked = make(tmp_path, "linked")
    outside = tmp_path / "outside.md"
    outside.write_text(LEGACY.format(name="linked"), encoding="utf-8")
    (linked / "SKILL.md").unlink()
    os.symlink(outside, linked / "SKILL.md")
    refused(capsys, linked, "not a regular file")
    assert outside.read_text(encoding="utf-8") == LEGACY.format(name="linked")


def test_an_existing_backup_is_never_overwritten(tmp_path, capsys):
    folder = make(tmp_path)
    (folder / "SKILL.md.legacy").write_text("an older backup\n", encoding="utf-8")
    before = snapshot(folder)
    assert skillyard_main(["migrate", "--to-standard", str(folder)]) == 1
    assert "already exists" in capsys.readouterr().out
    assert snapshot(folder) == before
    assert skillyard_main(["migrate", "--to-standard", "--no-backup", str(folder)]) == 0
    assert (folder / "SKILL.md.legacy").read_text(encoding="utf-8") == "an older backup\n"
    assert (folder / "skill.yaml").is_file()


def test_dry_run_writes_nothing(tmp_path, capsys):
    folder = make(tmp_path)
    before = snapshot(folder)
    assert skillyard_main(["migrate", "--to-standard", "--dry-run", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "+++ b/skill.yaml" in out and "+  - a" in out and "would be valid" in out
    assert snapshot(folder) == before


def test_batch_converts_the_good_folders_and_reports_the_bad_one(tmp_path, capsys):
    good = make(tmp_path, "good")
    bad = make(tmp_path, "bad", manifest='version: "9.9.9"\nschema_version: "1.0"\n')
    bad_before = snapshot(bad)
    assert skillyard_main(["migrate", "--to-standard", str(good), str(bad), str(tmp_path / "missing")]) == 1
    text = capsys.readouterr().out
    assert f"{bad}: not converted" in text and "missing: not converted" in text
    assert (good / "skill.yaml").is_file() and "tags" not in (good / "SKILL.md").read_text(encoding="utf-8")
    assert snapshot(bad) == bad_before


def test_a_huge_flow_frontmatter_is_refused_once_not_rescanned(tmp_path):
    """The portability check reads only YAML that already loaded within the bounds: a 1 MiB flow document is
    refused by the loader (`yaml-too-large`) and never parsed again for its flow collections."""
    from skillyard.format import Policy, load_skill

    folder = make(tmp_path, text="---\nname: {name}\ntags: [" + "a, " * 300_000 + "a]\n---\nbody\n")
    rules = {f.rule for f in load_skill(folder, Policy(strict=True)).errors}
    assert "yaml-too-large" in rules and "not-portable" not in rules


def test_a_huge_folder_is_not_copied_for_the_preview(tmp_path, capsys):
    folder = make(tmp_path)
    with open(folder / "blob.bin", "wb") as handle:
        handle.truncate(512 * 1024 * 1024)  # sparse; a copy would write it out
    assert skillyard_main(["migrate", "--to-standard", "--dry-run", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "[package-too-large]" in out and "not validated here" in out
    assert sorted(p.name for p in folder.iterdir()) == ["SKILL.md", "blob.bin"]


# design 004's code block: bounded time on a hostile 1 MiB body, in a separate process under resource limits -------

CHILD = """
import json, resource, sys
from pathlib import Path
from skillyard.registry.migrate_004 import entry_block
entry_block("```ts\\nexport function execute() {}\\n```\\n")  # imports and compiled patterns first
used = sum(resource.getrusage(resource.RUSAGE_SELF)[:2])
resource.setrlimit(resource.RLIMIT_CPU, (int(used) + 6, int(used) + 6))  # SIGXCPU past ~5 s of work
resource.setrlimit(resource.RLIMIT_AS, (800 * 2**20, 800 * 2**20))
block = entry_block(Path(sys.argv[1]).read_text(encoding="utf-8"))
print(json.dumps(None if block is None else block.path))
"""
MIB = 1024 * 1024


@pytest.mark.parametrize("body,found", [
    pytest.param("```ts\nexport function execute() {}\n" + "\n" * (MIB - 64) + "```\n", "scripts/execute.ts",
                 id="1MiB-of-line-ends"),
    pytest.param("```ts\n" + "export function" + " " * (MIB - 64) + "\n```\n", None, id="1MiB-of-spaces"),
    pytest.param("```ts\n" * (MIB // 6), None, id="1MiB-of-fences"),
    pytest.param("```ts\n" + "export\n" * (MIB // 8) + "```\n", None, id="1MiB-of-exports"),
    pytest.param("```ts\n" + "\u2028\x0c" * (MIB // 8) + "\nexport function execute() {}\n```\n", "scripts/execute.ts",
                 id="1MiB-of-other-separators"),
])
def test_the_code_block_finder_is_bounded_on_hostile_bodies(tmp_path, body, found):
    import json
    import subprocess
    import sys

    (tmp_path / "body.md").write_text(body, encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "body.md")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]  # SIGXCPU or MemoryError would end it otherwise
    assert json.loads(done.stdout) == found
