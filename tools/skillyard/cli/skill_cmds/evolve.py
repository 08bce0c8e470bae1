"""skill evolve: keep experience notes beside an installed skill (evolution.json), never editing SKILL.md."""

from __future__ import annotations

NAME = "evolve"
HELP = "record or list experience notes for an installed skill (evolution.json)"
DESCRIPTION = """\
Notes on what worked and what did not, kept in evolution.json inside the installed skill's folder. Entries get
sequential, stable ids (evo-001, evo-002, ...). SKILL.md is never changed.

examples:
  skill evolve add invoice-processor --title "VAT ids need trimming" --content "Strip spaces before checking." \\
      --trigger "checksum failed on a valid id" --author octocat
  skill evolve list invoice-processor --json
"""


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="add a note")
    add.add_argument("name", help="installed skill name (or its folder)")
    add.add_argument("--title", required=True, help="one-line summary (1-200 characters)")
    add.add_argument("--content", required=True, help="the lesson, in full")
    add.add_argument("--trigger", help="what happened that taught it")
    add.add_argument("--author", help="who learned it")
    add.add_argument("--json", action="store_true", help="print the new entry as JSON")
    listing = sub.add_parser("list", help="list notes")
    listing.add_argument("name", help="installed skill name (or its folder)")
    listing.add_argument("--json", action="store_true", help="print evolution.json")


def run(args) -> int:
    from skillyard.cli.common import print_json
    from skillyard.cli.skill_cmds.validate import find_folder
    from skillyard.errors import SkillyardError
    from skillyard.format.frontmatter import parse_skill_md
    from skillyard.runtime import evolution

    folder = find_folder(args.name)
    skill_md = folder / "SKILL.md"
    if not skill_md.is_file():
        raise SkillyardError(f"{folder} has no SKILL.md", "Give an installed skill's name or folder.")
    data = parse_skill_md(skill_md.read_text(encoding="utf-8"), strict=False).data
    name = data.get("name") if isinstance(data.get("name"), str) else folder.name
    if args.action == "add":
        title, content = args.title.strip(), args.content.strip()
        if not title or len(title) > 200:
            raise SkillyardError("--title must be 1-200 characters", "Give a one-line summary.")
        if not content:
            raise SkillyardError("--content is empty", "Write the lesson learned.")
        entry = evolution.add(folder, name, title=title, content=content, trigger=args.trigger, author=args.author)
        if args.json:
            print_json(entry)
        else:
            print(f"{entry['id']}  {entry['date']}  {entry['title']}  ({folder / evolution.FILE})")
        return 0
    document = evolution.read(folder, name)
    if args.json:
        print_json(document)
        return 0
    from skillyard.cli.common import say

    if not document["entries"]:
        say(f"{name}: no notes yet (add one with `skill evolve add {name} --title ... --content ...`)")
    for entry in document["entries"]:  # notes ship with installed skills: their text is shown, never acted on
        say(f"{entry['id']}  {entry['date']}  {entry['title']}")
        for line in entry["content"].splitlines():
            say(f"    {line}")
        if entry.get("trigger"):
            say(f"    trigger: {entry['trigger']}")
        if entry.get("author"):
            say(f"    by: {entry['author']}")
    return 0
