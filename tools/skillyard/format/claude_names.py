"""The names Claude Code refuses in a marketplace.json, and the plugin name we give a skill whose own name is refused.

This is the one place that knows Claude Code's reserved names. Read from Claude Code 2.1.332 (the npm package
`@anthropic-ai/claude-code`; its JavaScript is inside the native binary `bin/claude.exe`, so read it with
`strings -n 8 bin/claude.exe` and search for "passes as one of Anthropic's own" (plugin names) and
"claude-plugins-official" (the Set of official marketplace names beside it, and the look-alike patterns after it)).
Re-read it when the interop pin of Claude Code moves (CONTRIBUTING.md, "Bumping the interop clients"); the interop
test `claude plugin validate --strict` on the repository's own marketplace.json fails when a name here is stale.

Plugin names (2.1.332): split the lowercased name into its runs of letters and digits; the name is refused when the
runs joined so far, before the last run, spell `claude`, `anthropic`, `anthropics` or `ccplugin` (so a name may not
start with `claude-`, `cc-plugin-`, ...), when all runs joined spell `claude`, `anthropic`, `anthropics`,
`claudecode` or `claudemods`, or when `official` stands beside `claude` or `anthropic`. A name with a run that is
exactly `claude`, `anthropic` or `anthropics` anywhere only warns ("reads as one of Anthropic's own"), but
`claude plugin validate --strict` fails on warnings, so we avoid those too. Claude Code folds look-alike non-ASCII
letters before judging; skill names are ASCII (`name-format`), so any other name is treated as refused here.

Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import re

READ_FROM = "2.1.332"

# Official Anthropic marketplaces, community/partner ones and the plugin directory: only their own GitHub
# repositories may use these names.
OFFICIAL_MARKETPLACES = frozenset({
    "claude-code-marketplace", "claude-code-plugins", "claude-plugins-official", "anthropic-marketplace",
    "anthropic-plugins", "agent-skills", "anthropic-agent-skills", "life-sciences", "knowledge-work-plugins",
    "claude-for-legal", "claude-for-financial-services", "financial-services-plugins", "first-party-plugins",
    "claude-tag-plugins", "claude-community", "claude-plugins-community", "healthcare", "anthropic-plugin-directory",
    "claude-plugin-directory"})
# Names Claude Code uses for plugins of its own kinds (session, built-in, synced, ...).
SYSTEM_MARKETPLACES = frozenset({"inline", "builtin", "skills-dir", "synced", "claude-plugin-test"})

_MARKS = ("claude", "anthropic", "anthropics")  # a run equal to one of these warns in a plugin name
_PREFIX_RUNS = frozenset({*_MARKS, "ccplugin"})  # may not be the runs before the last one
_WHOLE_RUNS = frozenset({*_MARKS, "claudecode", "claudemods"})  # may not be all the runs
_OFFICIAL = re.compile(r"official[^a-z0-9]*(?:anthropic|claude)|(?:anthropic|claude)[^a-z0-9]*official")
_PLAIN = re.compile(r"[\x20-\x7e]*")
_MARKETPLACE_WORDS = ("marketplace", "plugins", "official", "directory", "directories")
_MARKETPLACE_LEAD = re.compile(rf"^(?:anthropic|claude)[^a-z0-9]*(?:{'|'.join(_MARKETPLACE_WORDS)})")
_MARKETPLACE_JOINED = re.compile(rf"^(?:anthropic|claude)(?:{'|'.join(_MARKETPLACE_WORDS)})s?\Z")


def _runs(name: str) -> list[str]:
    return [run for run in re.split(r"[^a-z0-9]+", name.lower()) if run]


def plugin_name_refused(name: str) -> str | None:
    """Why Claude Code (see READ_FROM) refuses `name` as a third party's plugin name, or warns on it; None when not."""
    if not _PLAIN.fullmatch(name):
        return "it holds characters outside printable ASCII, which Claude Code reads through look-alike letters"
    lowered, runs = name.lower(), _runs(name)
    joined = ""
    for index, run in enumerate(runs):
        joined += run
        whole = index == len(runs) - 1
        if joined in (_WHOLE_RUNS if whole else _PREFIX_RUNS):
            return (f"it is {joined!r}" if whole else f"it starts with {joined!r}") + ", which Claude Code reserves"
    if _OFFICIAL.search(lowered) or _OFFICIAL.search("".join(runs)):
        return "it puts `official` beside `claude` or `anthropic`"
    if any(run in _MARKS for run in runs):
        return "it has `claude` or `anthropic` as a word (a warning, which `claude plugin validate --strict` fails)"
    return None


def marketplace_name_refused(name: str) -> str | None:
    """Why Claude Code (see READ_FROM) refuses `name` for a third party's marketplace; None when it accepts it."""
    lowered = name.lower()
    if lowered in OFFICIAL_MARKETPLACES:
        return "it is the name of an official Anthropic marketplace"
    if lowered in SYSTEM_MARKETPLACES:
        return "Claude Code uses it for plugins of its own"
    if not _PLAIN.fullmatch(name):
        return "it holds characters outside printable ASCII"
    bare = re.sub(r"^[^a-z0-9]+", "", lowered)
    if _OFFICIAL.search(lowered) or _MARKETPLACE_LEAD.search(bare) or _OFFICIAL.search(re.sub(r"[^a-z0-9]+", "", lowered)):
        return "it reads like an official Anthropic or Claude marketplace"
    joined = ""
    for run in _runs(name):
        joined += run
        if _MARKETPLACE_JOINED.match(joined):
            return "it reads like an official Anthropic or Claude marketplace"
        if len(joined) > 21:
            break
    return None


def _without_marks(name: str) -> str:
    return "-".join(run for run in _runs(name) if run not in _MARKS)


def _digest(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:12]


def plugin_name(skill_name: str) -> str:
    """The plugin name of a skill in marketplace.json: the skill's own name unless Claude Code refuses it; then the
    name without its `claude`/`anthropic`/`anthropics` words plus `.skill` (`claude-settings-audit` ->
    `settings-audit.skill`), or `skill.<12 hex digits of its SHA-256>` when that is refused too. A skill name has no
    `.` (`name-format`), so a renamed plugin never takes another skill's name; and the rename depends on the name
    alone, so each skill's marketplace line stays its own (the build encodes them one by one)."""
    if plugin_name_refused(skill_name) is None:
        return skill_name
    core = _without_marks(skill_name)
    renamed = f"{core}.skill"
    if core and plugin_name_refused(renamed) is None:
        return renamed
    return f"skill.{_digest(skill_name)}"


def marketplace_name(name: str) -> str:
    """`name` (already kebab-case) when Claude Code accepts it for a marketplace; else the name without its
    `claude`/`anthropic`/`anthropics` words plus `-registry` (`claude-plugins` -> `plugins-registry`,
    `agent-skills` -> `agent-skills-registry`), or `registry-<12 hex digits>` when that is refused too."""
    if marketplace_name_refused(name) is None:
        return name
    core = _without_marks(name)
    renamed = f"{core}-registry" if core else "skills-registry"
    if marketplace_name_refused(renamed) is None:
        return renamed
    return f"registry-{_digest(name)}"
