"""Wait until a local TCP port accepts connections (the dev server has started)."""
import socket
import sys
import time


def wait(port: int, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            time.sleep(0.5)
    return False


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    ok = wait(port)
    print("up" if ok else "not listening")
    sys.exit(0 if ok else 1)
