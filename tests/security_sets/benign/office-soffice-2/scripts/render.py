"""Render a deck through a LibreOffice listener on this machine: start soffice accepting on a local port, wait until
the port answers, then convert."""

import os
import socket
import subprocess
import sys
import time

PORT = 2002


def _listening(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def main(path: str) -> int:
    env = dict(os.environ)
    env["HOME"] = "/tmp/lo-profile"
    subprocess.Popen(["soffice", "--headless", f"--accept=socket,host=127.0.0.1,port={PORT};urp;"], env=env)
    for _ in range(50):
        if _listening(PORT):
            break
        time.sleep(0.2)
    return subprocess.run(["soffice", "--headless", "--convert-to", "png", path], env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
