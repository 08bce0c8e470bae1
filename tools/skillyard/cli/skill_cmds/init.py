"""skill init: start a new skill folder in the portable form that passes `skillyard validate --strict` once its
description is written (given with --description, it passes as written)."""

from __future__ import annotations

NAME = "init"
HELP = ("create a new skill folder (SKILL.md, skill.yaml, optional scripts/); with --description it passes strict "
        "validation as written")
DESCRIPTION = """\
Create <dir>/<name>/SKILL.md (the standard's fields and a body to fill in) and skill.yaml beside it (version,
tags, author, capabilities: the registry's fields), the portable form every Agent Skills client reads. On a terminal, missing fields are
asked for; in scripts, give them as flags (anything missing gets a sensible default). --with-scripts adds a
runnable scripts/<name>.py with --help.
With --description (or a description typed at the prompt), what init writes passes `skillyard validate --strict`;
without one, SKILL.md gets a placeholder description that strict validation (a registry's CI) refuses until you
replace it - the one thing left to write, and init says so. A description of 501-1,024 characters is folded over short
lines (`description: >-`); a value strict validation rejects (a description over 1,024 characters, `<` in it,
--version 1.2, ...) is refused with exit status 2 and a message naming the flag, before anything is written.

examples:
  skill init                      # asks for everything
  skill init pdf-tools --description "Fill and merge PDF forms. Use when ..." --tags pdf,documents \\
      --license MIT --author octocat --capability read-file --with-scripts --dir skills
"""

CAPABILITIES = ("read-file", "write-file", "http-request", "execute-code")


def add_arguments(parser) -> None:
    parser.add_argument("name", nargs="?", help="skill name: lowercase letters, digits and hyphens")
    parser.add_argument("--description", help="what the skill does and when an agent should use it")
    parser.add_argument("--version", default=None, help="SemVer version (default 0.1.0)")
    parser.add_argument("--license", default=None, help="SPDX licence id (default MIT)")
    parser.add_argument("--tags", default=None, help="comma-separated lowercase tags")
    parser.add_argument("--author", default=None, help="GitHub handle or name of the author")
    parser.add_argument("--capability", action="append", choices=CAPABILITIES,
                        help="an abstract capability the skill needs (repeatable)")
    parser.add_argument("--with-scripts", action="store_true", help="add scripts/<name>.py")
    parser.add_argument("--dir", default=".", help="parent folder for the new skill (default: here)")
    parser.add_argument("--json", action="store_true", help="print the created files as JSON")


def _ask(label: str, default: str | None = None, *, check=None) -> str:
    while True:
        shown = f" [{default}]" if default else ""
        answer = input(f"{label}{shown}: ").strip() or (default or "")
        problem = check(answer) if check else None
        if not problem:
            return answer
        print(f"  {problem}")


def _name_problem(name: str) -> str | None:
    import re

    from skillyard.format.paths import component_problem

    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name or "") or len(name) > 64:
        return "use 1-64 lowercase letters, digits and single hyphens, e.g. pdf-tools"
    problem = component_problem(name)  # it becomes a folder name: `con` cannot exist on Windows
    return f"as a folder name it {problem}" if problem else None


def _name_fix(name: str) -> str:
    """A path given as the name (`skills/pdf-tools`) means "make it in that folder": say so, with --dir."""
    import posixpath

    parent, _, last = name.replace("\\", "/").rstrip("/").rpartition("/")
    if parent and not _name_problem(last):
        return f"The name is the folder's last part; the parent goes in --dir: `skill init {last} --dir {parent}`."
    return "Rename it, e.g. `pdf-tools`." if not parent else (
        f"Give the name alone and the parent folder as --dir, e.g. `skill init pdf-tools --dir {posixpath.normpath(parent)}`.")


MAX_DESCRIPTION = 1024  # the standard's limit; a longer description is folded over short lines, never cut


def _description_problem(text: str) -> str | None:
    if not text or not text.strip():
        return "write 1-1024 characters: what it does and when to use it"
    if len(text) > MAX_DESCRIPTION:
        return f"it is {len(text):,} characters; the limit is {MAX_DESCRIPTION:,}"
    return None


def _collect(args) -> dict:
    import sys

    from skillyard.errors import UsageError

    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    name = args.name
    if name is None:
        if not interactive:
            raise UsageError("a skill name is required", "Run `skill init <name> --description ...`.")
        name = _ask("Skill name (e.g. pdf-tools)", check=_name_problem)
    if _name_problem(name):
        raise UsageError(f"invalid skill name {name!r}: {_name_problem(name)}", _name_fix(name))
    description = args.description
    if description is None and interactive:
        description = _ask("Description (what it does; use when ...)", check=_description_problem)
    if description is None:
        from skillyard.format.rules import placeholder_description

        description = placeholder_description(name)  # strict validation refuses it until it is replaced
    if _description_problem(description):
        raise UsageError(f"--description: {_description_problem(description)}. Nothing was written.",
                         f"Give --description of 1-{MAX_DESCRIPTION:,} characters: what the skill does and when to "
                         "use it (details belong in the SKILL.md body).")
    fields = {"version": args.version, "license": args.license, "tags": args.tags, "author": args.author}
    defaults = {"version": "0.1.0", "license": "MIT", "tags": name.split("-")[0], "author": None}
    for key, value in fields.items():
        if value is None and interactive:
            fields[key] = _ask(key.capitalize(), defaults[key]) or None
        elif value is None:
            fields[key] = defaults[key]
    capabilities = args.capability
    if capabilities is None and interactive:
        raw = _ask(f"Capabilities ({', '.join(CAPABILITIES)}; comma-separated, empty for none)", "")
        capabilities = [c.strip() for c in raw.split(",") if c.strip()]
        unknown = [c for c in capabilities if c not in CAPABILITIES]
        if unknown:
            raise UsageError(f"unknown capability {unknown[0]!r}", f"Use one of {', '.join(CAPABILITIES)}.")
    tags = [t.strip().lower() for t in (fields["tags"] or "").split(",") if t.strip()]
    return {"name": name, "description": description, "version": fields["version"], "license": fields["license"],
            "tags": list(dict.fromkeys(tags)), "author": fields["author"], "capabilities": capabilities or [],
            "with_scripts": args.with_scripts}


def skill_md(spec: dict) -> str:
    """The portable SKILL.md: only the standard's keys, block style, in short lines (the writer `skillyard migrate`
    uses); yamlwrite.FoldError when a value cannot be written so."""
    from skillyard.format.yamlwrite import dump_short_lines

    front = {"name": spec["name"], "description": spec["description"]}
    if spec["license"]:
        front["license"] = spec["license"]
    title = spec["name"].replace("-", " ").capitalize()
    lines = [f"# {title}", "", "## When to use", "", spec["description"], "", "## Steps", "",
             "1. Describe the first thing the agent should do.", "2. Describe how to check the result.", ""]
    if spec["with_scripts"]:
        script = spec["name"].replace("-", "_")
        lines += ["## Scripts", "", f"Run `python scripts/{script}.py --help` for the options.", ""]
    return f"---\n{dump_short_lines(front)}---\n\n" + "\n".join(lines)


def skill_yaml(spec: dict) -> str:
    """skill.yaml beside SKILL.md: the registry fields the standard's frontmatter has no place for."""
    from skillyard.format.portable import dump_manifest

    manifest = {"schema_version": "1.0", "version": spec["version"], "tags": spec["tags"]}
    if spec["author"]:
        manifest["author"] = spec["author"]
    if spec["capabilities"]:
        manifest["capabilities"] = spec["capabilities"]
    return dump_manifest({k: v for k, v in manifest.items() if v not in (None, [])})


SCRIPT = '''\
"""{title}: replace this with the skill's helper."""

import argparse


def main() -> int:
    parser = argparse.ArgumentParser(description="{description}")
    parser.add_argument("input", nargs="?", help="what to work on")
    args = parser.parse_args()
    print(f"{name}: {{args.input or 'nothing to do'}}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
'''


SCAFFOLD_RULES = frozenset({"placeholder-description"})  # what init writes on purpose, for the author to replace
REQUIRED = ("version", "license", "tags")  # what `skillyard init-registry`'s registries require of a skill
FLAGS = {"name": "the name", "description": "--description", "version": "--version", "license": "--license",
         "tags": "--tags", "author": "--author", "capabilities": "--capability"}


def render(spec: dict) -> dict[str, str]:
    """The new folder's files (path -> text), in memory; UsageError when a value cannot be written in the short
    lines strict validation wants."""
    from skillyard.errors import UsageError
    from skillyard.format.yamlwrite import FoldError

    try:
        files = {"SKILL.md": skill_md(spec), "skill.yaml": skill_yaml(spec)}
    except FoldError as exc:
        raise UsageError(f"{FLAGS.get(exc.key, exc.key)}: {exc.reason}. Nothing was written.",
                         f"Shorten {FLAGS.get(exc.key, exc.key)} or break its long words.") from None
    if spec["with_scripts"]:
        short = (spec["description"].split(".")[0].splitlines() or [""])[0]
        short = short.replace("\\", "").replace('"', "'").replace("{", "(").replace("}", ")")[:120]
        files["scripts/" + spec["name"].replace("-", "_") + ".py"] = SCRIPT.format(
            title=spec["name"], description=short, name=spec["name"])
    return files


def _write_tree(tree, files: dict[str, str]) -> None:
    tree.mkdir()
    for rel, text in files.items():
        path = tree / rel
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if rel.startswith("scripts/"):
            path.chmod(0o755)


def check(spec: dict, files: dict[str, str]) -> None:
    """Strict validation of the files before anything is written where the user asked: the first error is
    refused with its message and the flag to change (so init never leaves a folder strict validation rejects)."""
    import tempfile
    from pathlib import Path

    from skillyard.errors import UsageError
    from skillyard.format import Policy, load_skill
    from skillyard.format.safety import finding_text

    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / spec["name"]
        _write_tree(tree, files)
        found = [f for f in load_skill(tree, Policy(strict=True, required_fields=REQUIRED)).findings
                 if f.is_error and f.rule not in SCAFFOLD_RULES]
    if found:
        first = found[0]
        flag = FLAGS.get((first.field or "").split(".")[0].split("[")[0], "a value")
        where, message, _ = finding_text(first)
        raise UsageError(f"{flag}: {where} [{first.rule}] {message} Nothing was written.",
                         f"Change {flag}: {first.fix or 'see the message'}")


def create(spec: dict, parent, files: dict[str, str] | None = None) -> list:
    """Write the folder atomically: build it in a temporary sibling, then rename."""
    import os
    import shutil
    import tempfile
    from pathlib import Path

    from skillyard.errors import SkillyardError

    files = render(spec) if files is None else files
    parent = Path(parent)
    dest = parent / spec["name"]
    if os.path.lexists(dest):
        raise SkillyardError(f"{dest} already exists", "Choose another name or --dir, or delete the folder.")
    parent.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=f".{spec['name']}.", dir=parent))
    try:
        _write_tree(temp / spec["name"], files)
        os.rename(temp / spec["name"], dest)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    return sorted(p for p in dest.rglob("*") if p.is_file())


def run(args) -> int:
    from pathlib import Path

    from skillyard.cli.common import print_json
    from skillyard.format import Policy, load_skill

    spec = _collect(args)
    rendered = render(spec)
    check(spec, rendered)  # refused before anything is written
    files = create(spec, args.dir, rendered)
    folder = Path(args.dir) / spec["name"]
    package = load_skill(folder, Policy(strict=True, required_fields=REQUIRED))
    problems = [f"{f.rule}: {f.message}" for f in package.findings if f.is_error and f.rule not in SCAFFOLD_RULES]
    todo = ["description"] if any(f.rule in SCAFFOLD_RULES for f in package.findings) else []
    if args.json:
        print_json({"ok": not problems, "path": str(folder), "files": [str(p) for p in files], "errors": problems,
                    "to_write": todo})
    else:
        print(f"Created {folder}")
        for path in files:
            print(f"  {path.relative_to(folder)}")
        for problem in problems:  # only if the folder changed between the check and the write
            print(f"  error: {problem}")
        if todo:
            print("  to do: the description is a placeholder that strict validation refuses; write what the skill "
                  "does and when to use it (in SKILL.md, or pass --description)")
        print(f"Next: edit SKILL.md, then run `skillyard validate --strict {folder}`.")
    return 0 if not problems else 1
