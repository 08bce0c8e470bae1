"""Compatibility outputs derived from registry.json, so other tools can use this repository directly.

- `marketplace_json`: `.claude-plugin/marketplace.json`, which lets Claude Code users run
  `/plugin marketplace add <owner>/<repo>` and install any skill as a plugin. Claude Code's format: top-level
  `name` (kebab-case), `owner` {name, url?}, optional `metadata` {description, version}, and `plugins`, each with
  `name` and `source`. Each entry's `source` is the skill's own folder (e.g. "./skills/pdf-tools"), so installing
  the plugin copies that skill only, not the whole repository. A skill folder is not a plugin folder (a plugin keeps
  its skills under `skills/`), so the entry says `strict: false` and lists the plugin root itself as its one skill
  (`skills: ["./"]`); the entry then defines the plugin completely, no plugin.json needed.
  A pointer entry's folder is in its upstream repository: its source is Claude Code's `git-subdir` (`url`, `path`,
  `sha`), which fetches only that folder at the pinned commit and makes it the plugin root. The repository's own
  `.claude-plugin/plugin.json` (getsentry/skills, obra/superpowers) is then outside the plugin, so it cannot
  conflict with the entry ("conflicting manifests"), and the rest of the repository is never copied.
  Names Claude Code refuses (format/claude_names.py) are replaced there, for the marketplace and for a plugin.
- `agents_md_block`: a Markdown section for AGENTS.md listing every skill with its description and path.

Pure functions: registry dict in, document out; deterministic for equal input.
"""

from __future__ import annotations

import re

BEGIN = "<!-- skillyard:skills:begin -->"
END = "<!-- skillyard:skills:end -->"


def _kebab(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")


def _marketplace_name(registry: dict) -> str:
    slug = (registry.get("repository") or {}).get("slug") or ""
    from skillyard.format.claude_names import marketplace_name

    return marketplace_name(_kebab(registry.get("name") or slug.replace("/", "-")) or "skillyard-registry")


def _owner(registry: dict) -> dict:
    repo = registry.get("repository") or {}
    slug = repo.get("slug") or ""
    owner_name = slug.split("/")[0] if "/" in slug else (registry.get("name") or "skillyard")
    owner = {"name": owner_name}
    if "/" in slug:
        owner["url"] = f"https://github.com/{owner_name}"
    return owner


def _source_path(path: str) -> str:
    """`./<path>` for a plugin `source`; a path outside the repository (the shared path rule) is refused, since a
    plugin install copies whatever folder `source` names."""
    from skillyard.errors import SkillyardError
    from skillyard.format.paths import path_problem

    path = str(path).removeprefix("./").rstrip("/")
    problem = path_problem(path)
    if problem:
        raise SkillyardError(f"marketplace.json: skill path {path[:200]!r} {problem}",
                             "Rebuild registry.json with `skillyard build` (it writes only paths under skills/).")
    return f"./{path}"


def pointer_source(skill: dict) -> dict:
    """A pointer entry's plugin source: the skill's folder in its upstream repository at the pinned commit, as
    Claude Code's `git-subdir` (a sparse, partial clone of that folder only; Claude Code 2.1.64 and later). The
    URL is the full https one: Claude Code 2.1.64 turns an `owner/repo` shorthand into an SSH URL, which needs a
    key. A skill at the repository's root has no folder to name (`path` may not be empty), so its source is the
    whole repository (`url`)."""
    url = f"{skill['source_url'].rstrip('/')}.git"
    if not skill.get("path"):
        return {"source": "url", "url": url, "sha": skill["commit"]}
    return {"source": "git-subdir", "url": url, "path": _source_path(skill["path"]).removeprefix("./"),
            "sha": skill["commit"]}


def plugin_entry(skill: dict) -> dict:
    """One skill's plugin entry in marketplace.json: the skill's folder is the plugin root and its one skill (a
    local path for our own skills, `pointer_source` for a pointer entry). The plugin is named as the skill unless
    Claude Code reserves that name (`claude_names.plugin_name`)."""
    from skillyard.format.claude_names import plugin_name

    if "source_url" in skill:
        source: object = pointer_source(skill)
    else:
        source = _source_path(skill.get("path") or f"skills/{skill['name']}")
    entry = {"name": plugin_name(skill["name"]), "description": skill.get("description", ""), "source": source,
             "strict": False, "skills": ["./"]}
    if skill.get("version"):
        entry["version"] = skill["version"]
    if skill.get("author"):
        entry["author"] = {"name": skill["author"]}
    if skill.get("license"):
        entry["license"] = skill["license"]
    if skill.get("homepage"):
        entry["homepage"] = skill["homepage"]
    if skill.get("tags"):
        entry["keywords"] = list(skill["tags"])
    return entry


def marketplace_header(registry: dict) -> dict:
    """marketplace.json without its `plugins` (the build adds those from pre-encoded lines)."""
    name = _marketplace_name(registry)
    # Always a description: `claude plugin validate --strict` fails a marketplace without one.
    description = registry.get("description") or f"Agent skills from the {name} registry"
    return {"name": name, "owner": _owner(registry), "metadata": {"description": description}}


def marketplace_json(registry: dict) -> dict:
    """`.claude-plugin/marketplace.json` for the registry: one plugin per skill, sorted by name."""
    plugins = [plugin_entry(s) for s in sorted(registry.get("skills", []), key=lambda s: s["name"])]
    return {**marketplace_header(registry), "plugins": plugins}


def _no_markup(text: str) -> str:
    """`<` and `>` as entities: skill text can then never close the generated block (its markers are HTML comments),
    open a comment that swallows the maintainers' text, or add tags. Markdown shows the entities as the characters."""
    return str(text).replace("<", "&lt;").replace(">", "&gt;")


def _one_line(text: str) -> str:
    return _no_markup(" ".join(str(text).split()).replace("|", "\\|"))


def agents_line(skill: dict) -> str:
    """One skill's line in the AGENTS.md block; every field from the skill is escaped (see `_no_markup`). A pointer
    entry's SKILL.md is not in this repository: its line names the upstream file at the pinned commit."""
    if "source_url" in skill:
        where = "/".join(p for p in (skill["source_url"], "blob", skill["commit"], skill.get("path"), "SKILL.md") if p)
        return f"- **{_one_line(skill['name'])}** ({_one_line(where)}): {_one_line(skill.get('description', ''))}"
    path = _one_line(str(skill.get("path") or f"skills/{skill['name']}").strip("/"))
    return f"- **{_one_line(skill['name'])}** (`{path}/SKILL.md`): {_one_line(skill.get('description', ''))}"


def replace_agents_block(current: str | None, block: str, *, new_file_header: str) -> str:
    """AGENTS.md with its generated block replaced (or appended when it has none); the rest is kept byte for byte.

    Refuses a file whose markers are not exactly one begin followed by one end: guessing which pair is the real one
    is how a hostile description once turned into permanent damage.
    """
    check_agents_block(block)
    head, tail, strip = agents_frame(current, new_file_header=new_file_header)
    return head + (block.rstrip("\n") if strip else block) + tail


def check_agents_block(block: str | bytes) -> None:
    """Refuse a generated block (text or UTF-8 bytes) holding comment markers from skill text."""
    from skillyard.errors import SkillyardError

    opening, closing, begin = ("<!--", "-->", BEGIN) if isinstance(block, str) else (b"<!--", b"-->", BEGIN.encode())
    if block.count(opening) != 2 or block.count(closing) != 2 or not block.startswith(begin):
        raise SkillyardError("the generated AGENTS.md block holds comment markers from skill text (a stale cache?)",
                             "Delete .skillyard-cache/ and build again.")


def agents_frame(current: str | None, *, new_file_header: str) -> tuple[str, str, bool]:
    """(text before the block, text after it, whether the block's final newlines are dropped) for `current`."""
    from skillyard.errors import SkillyardError

    if not current:
        return new_file_header, "", False
    begins, ends = current.count(BEGIN), current.count(END)
    if begins == ends == 0:
        return current.rstrip("\n") + "\n\n", "", False
    if begins != 1 or ends != 1 or current.index(BEGIN) > current.index(END):
        raise SkillyardError(
            f"AGENTS.md has {begins} `{BEGIN}` and {ends} `{END}` markers; the build needs exactly one of each, "
            "begin first, around the generated skill list",
            "Edit AGENTS.md by hand: delete the stray markers (or the whole damaged list between them), then build again.")
    head, _, rest = current.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return head, tail, True


def agents_md_block(registry: dict) -> str:
    """A Markdown block for AGENTS.md: between marker comments so a build can replace it in place."""
    skills = sorted(registry.get("skills", []), key=lambda s: s["name"])
    return agents_md_block_from_lines([agents_line(skill) for skill in skills])


AGENTS_BLOCK_HEAD = "\n".join([BEGIN, "## Skills", "",
                               "Each skill is a folder with a SKILL.md. Read the SKILL.md of a skill whose description "
                               "matches the task before starting, and follow it; open files it mentions only when "
                               "needed.", "", ""])
AGENTS_BLOCK_TAIL = f"\n\n{END}\n"  # the block is head + lines joined with "\n" + tail


def agents_md_block_from_lines(skill_lines: list[str]) -> str:
    return AGENTS_BLOCK_HEAD + "\n".join(skill_lines or ["_No skills yet._"]) + AGENTS_BLOCK_TAIL
