"""Run a skill's bundled script for an MCP client, only with the user's yes (issue 38, step 3).

Off unless the server was started with scripts allowed (`skill mcp --allow-scripts` or config `mcp.allow_scripts`).
Each run is asked for through MCP elicitation, showing the exact command line and folder; a client that cannot ask
is refused. The script is a file of the skill (the runtime's path rule: no escapes, no links out), run without a
shell: `.py` with this Python, `.sh` with `sh`, `.bash` with `bash`, anything else only when it is executable.
It runs in the skill's folder with a scrubbed environment (PATH, HOME, locale and temp-folder variables only: no
tokens or keys leak from the server's environment), stdin closed, in its own process group killed at the timeout,
and with stdout and stderr each cut at a cap.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import stat
import sys

from skillyard.runtime import files
from skillyard.runtime.files import SkillFileError

DEFAULT_TIMEOUT = 60.0
MAX_OUTPUT = 64 * 1024
MAX_ARGS = 64
MAX_ARG_CHARS = 4096
KEPT_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ", "TERM")
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
INTERPRETERS = {".py": (sys.executable,), ".sh": ("sh",), ".bash": ("bash",)}


def scrubbed_env(environ: dict | None = None) -> dict[str, str]:
    """The few variables a script needs to run; everything else (API keys, tokens, cloud credentials) is dropped."""
    source = os.environ if environ is None else environ
    env = {key: source[key] for key in KEPT_ENV if source.get(key)}
    env.setdefault("PATH", SAFE_PATH)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the run must not add files to the installed (hash-checked) folder
    return env


def command_for(folder: str, script: object, args: object) -> list[str]:
    """The argv to run `script` (a path inside `folder`) with `args`; SkillFileError when either is refused."""
    real = files.resolve_in(folder, script)
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise SkillFileError("args must be a list of strings")
    if len(args) > MAX_ARGS or any(len(a) > MAX_ARG_CHARS or "\x00" in a for a in args):
        raise SkillFileError(f"args: at most {MAX_ARGS} arguments of {MAX_ARG_CHARS} characters, without NUL")
    suffix = os.path.splitext(real)[1].lower()
    if suffix in INTERPRETERS:
        return [*INTERPRETERS[suffix], real, *args]
    if os.stat(real).st_mode & stat.S_IXUSR:
        return [real, *args]
    raise SkillFileError(f"{script} is not a script this server runs: use a .py, .sh or .bash file, or one marked "
                         "executable")


def shown(argv: list[str]) -> str:
    return shlex.join(argv)


async def run(argv: list[str], cwd: str, *, timeout: float = DEFAULT_TIMEOUT, max_output: int = MAX_OUTPUT) -> dict:
    """Run `argv` in `cwd`: {exit_code, stdout, stderr, timed_out, truncated}. The whole process group is killed
    at the timeout (a script's children too); output past `max_output` per stream is read and dropped."""
    proc = await asyncio.create_subprocess_exec(*argv, cwd=cwd, env=scrubbed_env(), stdin=asyncio.subprocess.DEVNULL,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                start_new_session=True)
    cut = {"stdout": False, "stderr": False}

    async def drain(stream, key: str) -> bytes:
        kept = bytearray()
        while True:
            block = await stream.read(65536)
            if not block:
                return bytes(kept)
            room = max_output - len(kept)
            if len(block) > room:
                cut[key] = True
            kept += block[:max(room, 0)]

    readers = asyncio.gather(drain(proc.stdout, "stdout"), drain(proc.stderr, "stderr"), proc.wait())
    timed_out = False
    try:
        out, err, code = await asyncio.wait_for(readers, timeout)
    except TimeoutError:
        timed_out = True
        _kill_group(proc.pid)
        out, err = b"", b""
        code = await proc.wait()
    except BaseException:  # the client cancelled the call: never leave the script running
        _kill_group(proc.pid)
        raise
    return {"exit_code": code, "stdout": out.decode("utf-8", "replace"), "stderr": err.decode("utf-8", "replace"),
            "timed_out": timed_out, "truncated": cut["stdout"] or cut["stderr"]}


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def report(argv: list[str], result: dict, timeout: float) -> str:
    """What the model reads back."""
    lines = [f"$ {shown(argv)}"]
    if result["timed_out"]:
        lines.append(f"(stopped: it ran longer than {timeout:g} seconds)")
    else:
        lines.append(f"exit code {result['exit_code']}")
    if result["truncated"]:
        lines.append(f"(output cut at {MAX_OUTPUT} bytes per stream)")
    lines += ["--- stdout ---", result["stdout"].rstrip("\n"), "--- stderr ---", result["stderr"].rstrip("\n")]
    return "\n".join(lines) + "\n"
