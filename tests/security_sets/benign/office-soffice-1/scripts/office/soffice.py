"""Start LibreOffice headless. Some sandboxes forbid AF_UNIX sockets, which soffice needs for its own
inter-process pipe; this helper notices that and tells the child process which rendering plug-in to use."""

import os
import socket
import subprocess
import sys


def child_env() -> dict:
    env = os.environ.copy()
    env["SAL_USE_VCLPLUGIN"] = "svp"
    if not _unix_sockets_work():
        env["LO_NO_UNIX_SOCKET"] = "1"
    return env


def _unix_sockets_work() -> bool:
    if not hasattr(socket, "AF_UNIX"):
        return False
    try:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        probe.close()
        return True
    except OSError:
        return False


def run(args: list[str]) -> int:
    return subprocess.run(["soffice", *args], env=child_env(), check=False).returncode


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
