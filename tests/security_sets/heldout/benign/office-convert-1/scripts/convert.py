import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

PORT = 2002


def listener_up(port: int) -> bool:
    """A headless soffice already listening locally is reused instead of starting a second one."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def convert(src: Path) -> Path:
    env = os.environ.copy()
    profile = tempfile.mkdtemp(prefix="lo-profile-")
    env["HOME"] = profile
    env.setdefault("SAL_USE_VCLPLUGIN", "svp")
    args = ["soffice", "--headless", "--norestore", "--convert-to", "pdf", "--outdir", str(src.parent), str(src)]
    if listener_up(PORT):
        args.insert(1, f"--accept=socket,host=127.0.0.1,port={PORT};urp;")
    subprocess.run(args, env=env, check=True, timeout=180)
    return src.with_suffix(".pdf")


if __name__ == "__main__":
    print(convert(Path(sys.argv[1])))
