import os
import socket
import subprocess
import sys


def port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(1)
        return s.connect_ex(("localhost", port)) == 0


def main() -> None:
    env = {**os.environ, "SAL_USE_VCLPLUGIN": "svp"}
    if not port_open(2002):
        subprocess.Popen(["soffice", "--headless", "--accept=socket,host=localhost,port=2002;urp;"], env=env)
    subprocess.run(["soffice", "--headless", "--convert-to", "xlsx", sys.argv[1]], env=env, check=True)


if __name__ == "__main__":
    main()
