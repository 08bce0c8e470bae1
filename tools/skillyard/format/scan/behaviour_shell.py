"""Shells bound to sockets: reverse shells and bind shells (`bash -i >& /dev/tcp/…`, `nc -e /bin/sh`, `socat
exec:`, a socket duplicated onto a shell's input, PowerShell's TCPClient feeding `iex`)."""

from __future__ import annotations

import re

from skillyard.format.scan import flows
from skillyard.format.scan.context import ERROR

RULE = "security-reverse-shell"
FIX = "Remove it: a skill never hands a remote host a shell on the user's machine."
_SHELL_WORD = re.compile(r"(?:^|/)(?:ba|z|da|k)?sh\b|cmd\.exe|powershell|pwsh", re.I)
# Languages where a socket and a shell meet in one program: each needs all of its words.
_SOCKET_SHELL = {
    "python": (("socket", "dup2"), ("pty.spawn", "/bin/sh", "/bin/bash", "subprocess.call", "subprocess.Popen")),
    "powershell": (("TCPClient", "GetStream"), ("iex", "Invoke-Expression", "Out-String", "cmd.exe")),
    "go": (("net.Dial",), ("Stdin = ", "Stdin=")),
    "ruby": (("TCPSocket",), ("/bin/sh", "/bin/bash", "exec(", "spawn(", "IO.popen")),
    "javascript": (("net.connect", "net.Socket", "createConnection"), ("/bin/sh", "/bin/bash", "cmd.exe")),
    "typescript": (("net.connect", "net.Socket", "createConnection"), ("/bin/sh", "/bin/bash", "cmd.exe")),
}


def judge(flow: flows.Flow | None, ctx, report, text: str, language: str) -> None:
    if flow is not None:
        for op in flow.facts.ops:
            why = _shell_op(op)
            if why:
                report(RULE, ERROR, op.line, f"Opens a reverse shell: {why} (`{op.text[:80]}`). Whoever listens "
                       "there runs commands on the user's machine.", FIX)
                return
    needs = _SOCKET_SHELL.get(language)
    if needs is None:
        return
    first, second = needs
    if all(word in text for word in first if language != "javascript" and language != "typescript") and \
            (language not in ("javascript", "typescript") or any(word in text for word in first)) and \
            any(word in text for word in second) and (language != "javascript" or ".pipe(" in text or "stdin" in text):
        at = min(text.find(word) for word in first if word in text)
        report(RULE, ERROR, text.count("\n", 0, at) + 1, "Connects a socket to a shell: the program's network "
               "peer types the shell's commands (a reverse shell).", FIX)


def _shell_op(op: flows.Op) -> str:
    if op.name in flows.SHELLS and any(r.startswith(("/dev/tcp/", "/dev/udp/")) for r in op.redirects):
        return "a shell's input and output go to a network address through /dev/tcp"
    if any(w.startswith(("/dev/tcp/", "/dev/udp/")) for w in op.words) and op.name in flows.SHELLS:
        return "a shell reads a network address opened as a file through /dev/tcp"
    if op.name in ("nc", "ncat", "netcat", "nc.traditional", "nc.openbsd"):
        for i, word in enumerate(op.words):
            if word in ("-e", "-c", "--exec", "--sh-exec") and i + 1 < len(op.words) and \
                    _SHELL_WORD.search(op.words[i + 1]):
                return "netcat runs a shell for the connection (`-e`)"
            if word.startswith("-") and word.endswith("e") and len(word) <= 5 and i + 1 < len(op.words) and \
                    _SHELL_WORD.search(op.words[i + 1]):
                return "netcat runs a shell for the connection (`-e`)"
    if op.name in flows.SHELLS and "-i" in op.words and any(c in ("nc", "ncat", "netcat", "telnet", "socat")
                                                            for c in op.calls):
        return "an interactive shell is fed by a network connection"
    if op.name == "socat" and any(w.lower().startswith(("exec:", "system:")) for w in op.words) and \
            any(w.lower().startswith(("tcp:", "tcp4:", "tcp6:", "tcp-connect:", "tcp-listen:", "ssl:", "openssl:"))
                for w in op.words):
        return "socat joins a TCP connection to a program"
    return ""
