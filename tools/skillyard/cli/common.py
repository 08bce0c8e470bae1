"""Small output helpers shared by the commands: JSON, errors, progress."""

from __future__ import annotations

import sys
import time

from skillyard.errors import SkillyardError


def dump_json(data: object) -> str:
    """Stable JSON: sorted keys, UTF-8 kept, two-space indent, trailing newline (the bytes of json.dumps with those
    options, built by format/jsonout.py without json's pure-Python indenting encoder)."""
    from skillyard.format.jsonout import dumps_sorted

    return dumps_sorted(data) + "\n"


# Every JSON object a `skill ... --json` command prints carries {"skillyard": {"version", "command", "json_format"}}:
# the release that wrote it, the command, and the format's number. JSON_FORMAT goes up when a field of some
# command's output changes meaning or goes away; a new field never raises it. `skillyard` commands keep their own
# documents (the validate report has its own schema_version), so the label is set by `skill` only.
JSON_FORMAT = 1
_label: dict | None = None


def label_json(command: str | None) -> None:
    """From now on, label JSON objects as output of `skill <command>` (None: no label, as for `skillyard`)."""
    global _label
    if command is None:
        _label = None
        return
    from skillyard import __version__

    _label = {"version": __version__, "command": f"skill {command}", "json_format": JSON_FORMAT}


def labelled(data: object) -> object:
    """`data` with the `skillyard` label when it is a JSON object and a `skill` command is running."""
    if _label is not None and isinstance(data, dict) and "skillyard" not in data:
        return {**data, "skillyard": dict(_label)}
    return data


def print_json(data: object) -> None:
    sys.stdout.write(dump_json(labelled(data)))


def visible(text: str) -> str:
    """`text` safe for a terminal (see format/safety.visible; imported only when something is printed)."""
    from skillyard.format.safety import visible as safe

    return safe(text)


def say(text: str = "", *, file=None) -> None:
    """print() for a line that holds text from outside (a registry, a server, a skill's files): shown visible."""
    print(visible(text), file=file if file is not None else sys.stdout)


def print_error(exc: SkillyardError, *, as_json: bool = False) -> None:
    if as_json:
        payload = {"ok": False, "error": exc.message}
        if exc.fix:
            payload["fix"] = exc.fix
        print_json(payload)
    print(f"error: {visible(exc.message)}", file=sys.stderr)
    if exc.fix:
        print(f"  fix: {visible(exc.fix)}", file=sys.stderr)


class Progress:
    """A one-line progress counter on stderr, shown only on a terminal and only for work that takes a while."""

    def __init__(self, label: str, total: int, *, enabled: bool | None = None, delay: float = 0.5):
        self.label = label
        self.total = total
        self.done = 0
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.started = time.monotonic()
        self.delay = delay
        self._last = 0.0

    def advance(self, step: int = 1) -> None:
        self.done += step
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.started >= self.delay and (now - self._last >= 0.1 or self.done >= self.total):
            self._last = now
            sys.stderr.write(f"\r{self.label}: {self.done}/{self.total}")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and time.monotonic() - self.started >= self.delay:
            sys.stderr.write("\n")
            sys.stderr.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()



def from_package(exc: BaseException, *packages: str) -> bool:
    """True when `exc` is a class of one of `packages`, or was raised from inside their code."""
    if any(cls.__module__.split(".")[0] in packages for cls in type(exc).__mro__):
        return True
    return any(name.split(".")[0] in packages for name in _frames(exc))


def _frames(exc: BaseException) -> list[str]:
    """The module names of the traceback's frames, outermost first."""
    names, tb = [], exc.__traceback__
    while tb is not None:
        names.append(str(tb.tb_frame.f_globals.get("__name__", "")))
        tb = tb.tb_next
    return names


# Modules that read PyGithub's objects: a garbage answer surfaces there as a missing attribute or key.
API_READERS = ("skillyard.bot.github_io", "skillyard.client.publish")


def api_endpoint(args, prog: str) -> str:
    """The GitHub API root a command talked to: --api-url, else the environment or config it reads."""
    import os

    if getattr(args, "api_url", None):
        return str(args.api_url)
    if prog == "skillyard":
        return os.environ.get("GITHUB_API_URL") or "https://api.github.com"
    try:
        from skillyard.client.config import load_config

        return load_config().github_api_url
    except SkillyardError:
        return "https://api.github.com"


def _reason(exc: BaseException) -> str:
    """A network error's innermost cause in a few words (requests wraps urllib3, which wraps the socket error)."""
    seen, depth = exc, 0
    while depth < 8:
        inner = next((a for a in seen.args if isinstance(a, BaseException)), None) or \
            (seen.reason if isinstance(getattr(seen, "reason", None), BaseException) else None)
        if inner is None:
            break
        seen, depth = inner, depth + 1
    text = f"{type(seen).__name__} {seen}".lower()
    if "refused" in text:
        return "connection refused (nothing is listening there)"
    if "timed out" in text or "timeout" in text:
        return "no answer in time"
    if "disconnect" in text or "reset" in text or "aborted" in text:
        return "the server closed the connection without answering"
    return f"{type(seen).__name__}: {seen}"[:200]


def unexpected_error(exc: BaseException, args, prog: str, wrapped: SkillyardError | None = None) -> SkillyardError:
    """A clear error instead of a traceback, for what escaped a command.

    The network stacks under PyGithub (requests, urllib3) and PyGithub itself fail in their own ways: a refused or
    dropped connection, an HTTP error status, or an answer that is not the API (PyGithub, or the code reading its
    objects, then trips on a missing value). Each becomes one line naming the endpoint, with a fix. `wrapped` is a
    command's own message for such an error: it is kept for a 4xx answer (the command knows best what a 403 means
    to it), with the endpoint added. Anything else is a bug, named as one; SKILLYARD_TRACEBACK=1 shows the traceback.
    """
    import os

    endpoint = api_endpoint(args, prog)
    setting = "--api-url or $GITHUB_API_URL" if prog == "skillyard" else "--api-url, $SKILL_GITHUB_API_URL or github.api_url"
    fix = f"Check that {endpoint} is the GitHub API ({setting}) and that it is reachable, then run the command again."
    status = getattr(exc, "status", None)
    if from_package(exc, "github") and isinstance(status, int):
        if 400 <= status < 500 and wrapped is not None:
            return SkillyardError(f"{wrapped.message} (from {endpoint})", wrapped.fix)
        return SkillyardError(f"{endpoint} answered HTTP {status}; nothing was changed by this request", fix)
    if type(exc).__module__.split(".")[0] in ("requests", "urllib3"):
        url = getattr(getattr(exc, "request", None), "url", None) or endpoint
        return SkillyardError(f"cannot reach {url}: {_reason(exc)}", fix)
    readers = [name for name in _frames(exc) if name.startswith("skillyard.")]
    if from_package(exc, "github") or (readers and readers[-1] in API_READERS and
                                        isinstance(exc, AttributeError | KeyError | TypeError | ValueError)):
        return SkillyardError(f"{endpoint} did not answer like the GitHub API ({type(exc).__name__}: "
                              f"{str(exc)[:120]})", fix)
    if os.environ.get("SKILLYARD_TRACEBACK"):
        raise exc
    return SkillyardError(f"internal error in `{prog} {getattr(args, 'command', '')}`: {type(exc).__name__}: "
                          f"{str(exc)[:200]}",
                          "This is a bug: please report it with the command you ran (SKILLYARD_TRACEBACK=1 shows "
                          "the traceback).")
