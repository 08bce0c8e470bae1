"""Every example skill the user pages show is valid as shown: each ```markdown block that starts with frontmatter
naming a skill is written out as its SKILL.md, with the ```yaml block after it (one starting `schema_version:`) as
its skill.yaml and the files a ```text tree before it lists under the skill's folder, then validated as a registry
validates (`skillyard validate`, strict, with the required fields `skillyard init-registry` sets) and by
`skill validate`. So a reader who copies an example never meets an error the page did not mention."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from skillyard.cli.main import skill_main, skillyard_main

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([*(ROOT / "site" / "pages").rglob("*.md"), ROOT / "README.md", ROOT / "CONTRIBUTING.md",
                *(ROOT / "tools" / "skillyard" / "registry" / "init_template").rglob("*.md")])
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
NAME = re.compile(r"^name:\s*(\S+)\s*$", re.M)
TREE_MARKS = re.compile(r"[├└│─]+")


def _tree_files(tree: str, name: str) -> list[str]:
    """Paths under `name/` in an indented listing (`  name/` then deeper lines), comments after two spaces dropped."""
    out, depth = [], None
    for raw in tree.splitlines():
        line = TREE_MARKS.sub(lambda m: " " * len(m.group(0)), raw)
        entry = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        indent = len(line) - len(line.lstrip())
        if depth is None:
            if entry == f"{name}/":
                depth = indent
            continue
        if indent <= depth or not entry:
            break
        if not entry.endswith("/"):
            out.append(entry)
    return out


def examples() -> list[tuple[str, str, str, str | None, list[str]]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        blocks = [(m.group(1), m.group(2), text[:m.start()].count("\n") + 1) for m in FENCE.finditer(text)]
        for i, (lang, body, line) in enumerate(blocks):
            match = NAME.search(body)
            if lang != "markdown" or not body.startswith("---\n") or not match:
                continue
            name = match.group(1)
            after = blocks[i + 1] if i + 1 < len(blocks) else None
            manifest = after[1] if after and after[0] == "yaml" and after[1].startswith("schema_version:") else None
            trees = [b for lang_, b, _ in blocks[:i] if lang_ == "text" and f"{name}/" in b]
            files = _tree_files(trees[-1], name) if trees else []
            found.append((f"{page.relative_to(ROOT)}:{line}", body, name, manifest, files))
    return found


EXAMPLES = examples()


def test_the_pages_have_examples():
    assert {where.split(":")[0] for where, *_ in EXAMPLES} >= {"site/pages/publish.md", "site/pages/format.md"}


@pytest.mark.parametrize("where,body,name,manifest,files", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_every_example_skill_passes_strict_validation(tmp_path, capsys, where, body, name, manifest, files):
    registry = tmp_path / "registry"
    folder = registry / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(body, encoding="utf-8")
    if manifest is not None:
        (folder / "skill.yaml").write_text(manifest, encoding="utf-8")
    for rel in files:
        if rel in ("SKILL.md", "skill.yaml"):
            continue
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("print('example')\n" if rel.endswith(".py") else "# Example\n", encoding="utf-8")
    (registry / "pyproject.toml").write_text(
        '[tool.skillyard]\nname = "docs"\nskills_dir = "skills"\nmode = "strict"\n'
        'required_fields = ["version", "license", "tags"]\n', encoding="utf-8")
    capsys.readouterr()
    code = skillyard_main(["validate", "--root", str(registry), str(folder)])
    assert code == 0, f"{where}: `skillyard validate` refuses the example:\n{capsys.readouterr().out}"
    assert skill_main(["validate", str(folder)]) == 0, f"{where}:\n{capsys.readouterr()}"
