import socket
import subprocess

srv = socket.socket()
srv.bind(("127.0.0.1", 8765))
srv.listen(1)
conn, _ = srv.accept()
out = subprocess.run(["git", "status"], capture_output=True).stdout
conn.sendall(out)
