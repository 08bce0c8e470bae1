"""Remembered "always allow" answers to `ask` rules (design 003 §4-5), per agent and per skill.

The file is `$SKILLCLI_HOME/approvals.json` (default `~/.skillcli/approvals.json`; `$SKILL_APPROVALS` names another):

    {"format": 1, "agents": {"reviewer": {"code-secrets": {"location": "/abs/.../SKILL.md",
                                                          "approved_at": "2026-11-25T03:00:00Z"}}}}

An approval holds only for the SKILL.md it was given for: a same-named skill that appears in another folder later
(a higher-priority root, a planted copy) is asked about again. The file is written atomically (temporary file, then
rename) with mode 0600 and read with a size bound; a damaged file is an error that names it, never a silent allow.
`deny` rules always win: an approval only turns `ask` into `allow`.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from skillyard.runtime.jsonfile import JSONFileError, read_json

TYPE_CHECKING = False  # datetime and fcntl load where used: `skill prompt` imports this module for its error only
if TYPE_CHECKING:
    import datetime as _dt

FILE_ENV = "SKILL_APPROVALS"
FORMAT = 1
MAX_BYTES = 1024 * 1024
SETTLE_SECONDS = 2.0


class ApprovalsError(ValueError):
    """The approvals file cannot be used; the message names it."""


def default_path() -> Path:
    if os.environ.get(FILE_ENV):
        return Path(os.environ[FILE_ENV])
    home = os.environ.get("SKILLCLI_HOME") or os.path.join(os.path.expanduser("~"), ".skillcli")
    return Path(home) / "approvals.json"


class Approvals:
    """The remembered approvals in one file."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = Path(path) if path is not None else default_path()
        self._seen: tuple[list[int], dict] | None = None  # (file stamp, agents) of the last settled read

    def load(self) -> dict[str, dict[str, dict]]:
        """{agent: {skill: {"location", "approved_at"}}}; empty when the file does not exist."""
        try:
            document = read_json(self.path, MAX_BYTES)
        except FileNotFoundError:
            return {}
        except (OSError, JSONFileError) as exc:
            raise ApprovalsError(f"{self.path}: cannot be read ({exc}); fix or delete it") from None
        agents = document.get("agents") if isinstance(document, dict) and document.get("format") == FORMAT else None
        if not isinstance(agents, dict) or not all(
                isinstance(skills, dict) and all(isinstance(entry, dict) and isinstance(entry.get("location"), str)
                                                 for entry in skills.values()) for skills in agents.values()):
            raise ApprovalsError(f"{self.path}: not an approvals file (format {FORMAT}); fix or delete it")
        return agents

    def allowed(self, agent: str, skill: str, location: str) -> bool:
        entry = self._current().get(agent, {}).get(skill)
        return entry is not None and entry["location"] == location

    def _current(self) -> dict[str, dict[str, dict]]:
        """load(), read again only when the file changed (one `stat` per check, so `skill prompt` reads it once, not
        once per skill, and a host that keeps this object still sees a revocation at once). A file changed in the
        last SETTLE_SECONDS is read every time: a quick rewrite could keep its size and timestamps."""
        try:
            st = os.stat(self.path)
        except OSError:
            return self.load()  # missing: {}; unreadable: the error, as before
        stamp = [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
        if self._seen is not None and self._seen[0] == stamp:
            return self._seen[1]
        agents = self.load()
        settled = time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) >= SETTLE_SECONDS * 1e9
        self._seen = (stamp, agents) if settled else None
        return agents

    def remember(self, agent: str, skill: str, location: str, *, now: _dt.datetime | None = None) -> None:
        import datetime as _dt

        stamp = (now or _dt.datetime.now(_dt.UTC)).isoformat(timespec="seconds").replace("+00:00", "Z")
        with self._locked():
            agents = self.load()
            agents.setdefault(agent, {})[skill] = {"location": location, "approved_at": stamp}
            self._save(agents)

    def revoke(self, agent: str | None, skill: str | None) -> list[tuple[str, str]]:
        """Forget approvals (None matches every agent or skill); returns the (agent, skill) pairs removed."""
        with self._locked():
            return self._revoke(agent, skill)

    def _revoke(self, agent: str | None, skill: str | None) -> list[tuple[str, str]]:
        agents = self.load()
        removed = [(a, s) for a, skills in agents.items() for s in skills
                   if (agent is None or a == agent) and (skill is None or s == skill)]
        for a, s in removed:
            del agents[a][s]
            if not agents[a]:
                del agents[a]
        if removed:
            self._save(agents)
        return removed

    @contextlib.contextmanager
    def _locked(self):
        """Lock the file's folder, so two hosts remembering at once both keep their answer."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path.parent, os.O_RDONLY)
        except OSError as exc:
            raise ApprovalsError(f"{self.path}: cannot be written ({exc.strerror})") from None
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _save(self, agents: dict) -> None:
        import json

        text = json.dumps({"format": FORMAT, "agents": agents}, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
        try:
            from skillyard.fsutil import write_atomic  # tempfile & co.: only when an answer is remembered

            write_atomic(self.path, text, mode=0o600, durable=True)
        except OSError as exc:
            raise ApprovalsError(f"{self.path}: cannot be written ({exc.strerror})") from None
