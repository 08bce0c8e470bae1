"""Per-agent rules that decide which skills an agent may see and load.

A rule is `(pattern, action)` with action `allow`, `ask` or `deny` and an fnmatch pattern over skill names; the
LAST matching rule wins and a skill no rule matches is allowed. `deny` hides the skill from the index; `ask` lists
it, but the host must confirm with the user before loading it.

Rules live in TOML (read with the standard library):

    [agents.reviewer.skills]
    "*" = "deny"
    "code-*" = "allow"
    "code-secrets" = "ask"

`[agents."*".skills]` applies to every agent before the agent's own rules.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

ACTIONS = ("allow", "ask", "deny")
FILE_ENV = "SKILL_PERMISSIONS"
MAX_RULES_BYTES = 1024 * 1024


class RulesError(ValueError):
    """A rules file that cannot be used (bad TOML or an unknown action)."""


def decide(name: str, rules: list[tuple[str, str]]) -> str:
    action = "allow"
    for pattern, rule_action in rules:
        if fnmatch.fnmatchcase(name, pattern):
            action = rule_action
    return action


def filter_names(names, rules: list[tuple[str, str]]) -> dict[str, str]:
    """{name: allow|ask} for every name not denied."""
    out = {}
    for name in names:
        action = decide(name, rules)
        if action != "deny":
            out[name] = action
    return out


def parse_rules(document: dict, agent: str, *, file: str = "permissions") -> list[tuple[str, str]]:
    agents = document.get("agents", {})
    if not isinstance(agents, dict):
        raise RulesError(f"{file}: `agents` must be a table")
    rules: list[tuple[str, str]] = []
    for key in ("*", agent) if agent != "*" else ("*",):
        section = agents.get(key, {})
        skills = section.get("skills", {}) if isinstance(section, dict) else None
        if not isinstance(skills, dict):
            raise RulesError(f"{file}: agents.{key}.skills must be a table of pattern = \"allow|ask|deny\"")
        for pattern, action in skills.items():
            if action not in ACTIONS:
                raise RulesError(f"{file}: agents.{key}.skills.{pattern!r} is {action!r}; "
                                       f"use one of {', '.join(ACTIONS)}")
            rules.append((pattern, action))
    return rules


def rule_files(project_root: Path | None = None, home: Path | None = None) -> list[Path]:
    """Files read in order (later rules win): user `~/.agents/permissions.toml`, project's, then $SKILL_PERMISSIONS."""
    home = home or Path.home()
    files = [home / ".agents" / "permissions.toml"]
    if project_root is not None:
        files.append(Path(project_root) / ".agents" / "permissions.toml")
    if os.environ.get(FILE_ENV):
        files.append(Path(os.environ[FILE_ENV]))
    return files


def project_rules_root(cwd: str | os.PathLike | None = None, home: str | os.PathLike | None = None) -> Path | None:
    """The project whose `.agents/permissions.toml` applies: the nearest folder holding one, walking up from `cwd`
    to the repository top (`.git`), as project skill roots are found; never the home folder or above it."""
    here = Path(os.path.abspath(cwd or os.getcwd()))
    home_path = Path(os.path.abspath(home or Path.home()))
    for directory in (here, *here.parents):
        if directory == home_path or (home_path.is_relative_to(directory) and directory != here):
            return None
        if (directory / ".agents" / "permissions.toml").is_file():
            return directory
        if (directory / ".git").exists():
            return None
    return None


def agent_rules(agent: str, *, cwd: str | os.PathLike | None = None,
                home: str | os.PathLike | None = None) -> list[tuple[str, str]]:
    """The agent's rules from its permission files (user, project, $SKILL_PERMISSIONS): what a host gets by
    default, so an agent never sees a skill its files deny because the host forgot to pass them."""
    home_path = Path(home) if home is not None else None
    return load_rules(agent, rule_files(project_rules_root(cwd, home), home_path))


def load_rules(agent: str, files: list[Path]) -> list[tuple[str, str]]:
    rules: list[tuple[str, str]] = []
    for file in files:
        if not file.is_file():
            continue
        with open(file, "rb") as handle:
            data = handle.read(MAX_RULES_BYTES + 1)
        if len(data) > MAX_RULES_BYTES:
            raise RulesError(f"{file}: larger than {MAX_RULES_BYTES} bytes; a rules file is a few lines")
        import tomllib  # only when a rules file exists: most `skill prompt` runs have none

        try:
            document = tomllib.loads(data.decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise RulesError(f"{file}: not valid TOML ({exc})") from None
        except RecursionError:
            raise RulesError(f"{file}: nested too deeply") from None
        rules += parse_rules(document, agent, file=str(file))
    return rules
