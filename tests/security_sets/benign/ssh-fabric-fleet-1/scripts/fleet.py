import os
import sys

from fabric import ThreadingGroup

key = os.path.expanduser("~/.ssh/id_ed25519")
group = ThreadingGroup(*sys.argv[1:], user="ops", connect_kwargs={"key_filename": key})
for conn, result in group.run("uptime; df -h / | tail -1; systemctl --failed --no-legend", hide=True).items():
    print(f"== {conn.host}\n{result.stdout}")
