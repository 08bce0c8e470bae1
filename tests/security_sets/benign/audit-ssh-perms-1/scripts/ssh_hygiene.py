"""Looks at ~/.ssh file modes and key headers only; private key contents are never printed or sent."""
import stat
import subprocess
from pathlib import Path

ssh = Path.home() / ".ssh"
for path in sorted(ssh.iterdir()):
    mode = stat.S_IMODE(path.stat().st_mode)
    if path.suffix != ".pub" and path.is_file() and mode & 0o077:
        print(f"{path}: mode {oct(mode)} - should be 0600")
    if path.suffix == ".pub":
        bits = subprocess.run(["ssh-keygen", "-lf", str(path)], capture_output=True, text=True).stdout.split()
        if bits and bits[-1] == "(RSA)" and int(bits[0]) < 3072:
            print(f"{path}: RSA {bits[0]} bits - replace with ed25519")
        private = path.with_suffix("")
        if private.exists():
            check = subprocess.run(["ssh-keygen", "-y", "-P", "", "-f", str(private)], capture_output=True)
            if check.returncode == 0:
                print(f"{private}: no passphrase")
