"""Talks RESP to a Redis server over a plain socket, so it needs no client library."""
import os
import socket
from urllib.parse import urlparse

url = urlparse(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
host, port = url.hostname or "127.0.0.1", url.port or 6379


def command(sock, *parts):
    payload = f"*{len(parts)}\r\n" + "".join(f"${len(p)}\r\n{p}\r\n" for p in parts)
    sock.sendall(payload.encode())
    return sock.recv(65536).decode(errors="replace")


with socket.create_connection((host, port), timeout=3) as s:
    if url.password:
        command(s, "AUTH", url.password)
    print("PING ->", command(s, "PING").strip())
    print(command(s, "INFO", "memory").split("used_memory_human:")[1].split()[0])
    print(command(s, "SLOWLOG", "GET", "5"))
