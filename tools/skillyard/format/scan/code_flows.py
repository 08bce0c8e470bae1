"""The parsed behaviour scan of one file: pick the reader, read the file once, judge every behaviour over its facts.

Called from judge.scan_text for every script (by suffix or `#!` line) and for the shell and PowerShell blocks of a
Markdown file's code fences. A cheap gate comes first: the file's words (already computed by `Context`) must hold
one a behaviour module can act on, so an ordinary script is never parsed.
"""

from __future__ import annotations

import re

from skillyard.format.scan import gates, treesit
from skillyard.format.scan.context import Context, _words
from skillyard.format.scan.exec_flows import _index_of_line
from skillyard.format.scan.facts import Facts

# A script is parsed only when its words hold both ends a behaviour needs: a sink (something that runs, sends,
# schedules or binds a shell) and a source (a fetch, a decoder, a secret, the environment, a socket). Lowercase
# whole words, already counted by `Context`: an ordinary script stops at two set intersections.
_SINKS = _words("eval", "exec", "execsync", "execfile", "spawn", "spawnsync", "system", "popen", "function", "iex",
                "invoke", "sh", "bash", "zsh", "chmod", "chmodsync", "start", "command", "run", "call", "post", "put",
                "send", "sendall", "pbcopy", "xclip", "xsel", "clipboard", "writetext", "pyperclip", "clip",
                "crontab", "schtasks", "systemctl", "launchctl", "reg", "bashrc", "zshrc", "bash_profile",
                "launchagents", "currentversion", "authorized_keys", "nc", "ncat", "netcat", "socat", "tcp", "dup2",
                "stdin", "pipe", "nslookup", "dig", "scp", "python", "python3", "node", "source", "instance_eval",
                "runinnewcontext", "uploadstring", "uploadfile", "sendmail", "writefile", "writefilesync", "write",
                "gethostbyname", "getaddrinfo", "resolve", "urlopen", "postform", "post_form", "gist", "storbinary",
                "sendmessage", "params", "scriptblock", "invokescript", "public_send", "__send__", "require",
                "import", "globalthis", "push")
_SOURCES = _words("curl", "wget", "fetch", "http", "https", "iwr", "irm", "invoke", "downloadstring", "downloadfile",
                  "downloaddata", "urlopen", "urlretrieve", "requests", "httpx", "axios", "got", "base64", "atob",
                  "b64decode", "decode64", "frombase64string", "fromcharcode", "decodestring", "unhexlify", "rev",
                  "reverse", "pack", "xxd", "decrypt", "createdecipheriv", "ssh", "aws", "id_rsa", "id_ed25519",
                  "gnupg", "netrc", "kube", "credentials", "keychain", "wallet", "environ", "printenv",
                  "getenvironmentvariables", "socket", "tcpclient", "tcpsocket", "dial", "webclient", "uri",
                  "history", "zsh_history", "bash_history", "claude", "codex", "cursor", "pbpaste", "paste", "gh",
                  "gcloud", "security", "extension", "pgpass", "vault", "clipboard", "hex", "fromhex", "b32decode",
                  "b85decode", "a85decode", "base32", "tochararray", "marshal")
# A callee or module whose name is built at run time (`require(a + b)`, `g['ev'+'al'](`, `&('I'+'EX')`, `send(`):
# no source needed, the hidden name is the finding. Looked for only when a sink word is there.
_HIDDEN_NAME = re.compile(rb"\b(?:require|import)\s*\(\s*(?!['\"][^'\"\n]*['\"]\s*\))|\]\s*\(|"
                          rb"\b(?:public_)?send\s*\(|__send__")
# A vendor's key read from the environment by name, and a request: the key may go to another service's host.
_FETCHES = _words("fetch", "get", "urlopen", "request", "post", "axios", "got", "iwr", "irm", "invoke", "curl")
_NAMED_SECRET = re.compile(rb"(?:environ|getenv|Getenv|process\.env|\$env:|ENV\[)[^\n]{0,40}?(?:KEY|TOKEN|SECRET)")
# PowerShell's call operator on an expression or a variable (`&('I'+'EX')`, `.($env:ComSpec[4,15,25]-join'')`,
# `& $c`): the name may be built at run time whatever the script's other words.
_CALL_OPERATOR = re.compile(rb"(?:^|[\s;|{(=])[&.]\s*[($]")
# Sources whose word is too common to gate on (`#!/usr/bin/env`, `/dev/null`): looked for as these bytes instead.
_SOURCE_BYTES = (b"process.env", b"ENV", b"/dev/tcp", b"/dev/udp", b"env:", b"net.Dial", b"net.connect",
                 b"net.Socket", b"net.createConnection", b"N-ZA-M", b"n-za-m", b"[::-1]", b"chr(", b"[]byte{")
# A fenced block in Markdown is parsed only when it downloads and then runs something, or names a socket shell:
# most fences are install lines or examples, and reading each costs more than this `in` test.
_FENCE_FETCH = ("curl", "wget", "invoke-webrequest", "iwr ", "irm ", "downloadfile", "start-bitstransfer")
_FENCE_RUN = ("sh ", "bash ", "chmod", "./", ".\\", "start-process", "iex", "invoke-expression", ".exe", "python",
              "node ", "source ", "&")
_FENCE_SHELL = ("/dev/tcp", "/dev/udp", "nc ", "ncat ", "socat ")
# The block tests above as lowercase bytes (stems: `nc ` is in `sync `, `curl` in `libcurl`), asked of the whole file first (`Context.may_hold`, the bytes lowered once
# and shared): a file none of whose blocks can pass is never split into fences here. Exact: lowering a block yields
# an ASCII needle only where the file's bytes lowered hold it, save U+0130 and U+212A, for which may_hold says yes.
_FENCE_FETCH_BYTES = gates.Bytes(*(w.encode() for w in _FENCE_FETCH))  # (Bytes: in the matcher pass, gates.py)
_FENCE_RUN_BYTES = gates.Bytes(*(w.encode() for w in _FENCE_RUN))
_FENCE_SHELL_BYTES = gates.Bytes(*(w.encode() for w in _FENCE_SHELL))
_FENCE_LANGUAGES = {"bash": "shell", "sh": "shell", "shell": "shell", "zsh": "shell", "console": "shell",
                    "powershell": "powershell", "ps1": "powershell", "pwsh": "powershell", "ps": "powershell"}
_FENCE_INFO = re.compile(r"^ {0,3}(?:`{3,}|~{3,})[ \t]*([\w+-]*)", re.M)
_LANGUAGES = frozenset({"shell", "powershell", "javascript", "typescript", "tsx", "ruby", "go", "python"})


def _read(language: str, source: str) -> Facts | None:
    """Read one script with its language's reader. Each reader (and its grammar's patterns) is imported the first
    time a script of that language passes the gates: most runs need few of them, many none."""
    if language == "shell":
        from skillyard.format.scan import read_shell
        return read_shell.read(source)
    if language == "python":
        from skillyard.format.scan import read_python
        return read_python.read(source)
    if language in ("javascript", "typescript", "tsx"):
        from skillyard.format.scan import read_js
        return read_js.read(source) if language == "javascript" else read_js.read(source, language)
    if language == "powershell":
        from skillyard.format.scan import read_powershell
        return read_powershell.read(source)
    if language == "ruby":
        from skillyard.format.scan import read_ruby
        return read_ruby.read(source)
    from skillyard.format.scan import read_go
    return read_go.read(source)


# The facts of the last scripts read, kept while their sources add up to at most this many characters: the per-file
# judge and the skill-level flows of the same skill ask for the same script one after the other, so a few suffice
# (256 sources of up to `treesit.MAX_SOURCE` each could have held ~128 MiB).
FACTS_CACHE_CHARS = 4 * 1024 * 1024
_facts_cache: dict[tuple[str, str], Facts | None] = {}
_facts_held = [0]  # characters of source `_facts_cache` holds


def facts_for(language: str, source: str) -> Facts | None:
    """One file's facts, read once: the per-file judge and the skill-level flows share them."""
    key = (language, source)
    if key in _facts_cache:
        facts = _facts_cache.pop(key)
        _facts_cache[key] = facts  # the most recently used last
        return facts
    if language not in _LANGUAGES:
        return None
    try:
        facts = _read(language, source)
        if language == "shell" and facts is not None:
            _inline_python(facts)
        elif language in ("javascript", "typescript", "tsx", "ruby", "go", "powershell") and facts is not None:
            _inline_shell(facts)
    except (RecursionError, ValueError, UnicodeError):
        facts = None
    if len(source) <= FACTS_CACHE_CHARS:
        _facts_cache[key] = facts
        _facts_held[0] += len(source)
        while _facts_held[0] > FACTS_CACHE_CHARS:  # the least recently used go first
            oldest = next(iter(_facts_cache))
            _facts_held[0] -= len(oldest[1])
            del _facts_cache[oldest]
    return facts


def _inline_python(facts: Facts) -> None:
    """`python3 -c "…"` in a shell script: the inline program read as Python, its ops placed on the command's line
    (they run through it, fed by what feeds it)."""
    from skillyard.format.scan import read_python

    added = False
    for op in list(facts.ops):
        if op.name in ("python", "python3", "python2") and "-c" in op.words[:-1]:
            inner = read_python.read(op.words[op.words.index("-c") + 1])
            for sub in inner.ops[:200] if inner is not None else ():
                facts.add(sub.replace(line=op.line, uses=sub.uses | op.uses, calls=sub.calls | op.calls,
                                              text=op.text))
                added = True
    if added:
        facts.ops.sort(key=lambda op: op.line)


_SHELL_RUNNERS = frozenset({"exec", "execsync", "system", "`", "popen", "capture2", "capture3", "popen3"})


def _inline_shell(facts: Facts) -> None:
    """`execSync('curl … -o /tmp/a.tgz')`, `system("tar xzf …")`, `` `…` ``: a command line a script hands to a
    shell, read as shell on the call's line, so steps spread over several such calls still make one flow."""
    from skillyard.format.scan import read_shell

    added = False
    for op in list(facts.ops[:400]):
        command = op.words[0] if op.words else ""
        if op.name in _SHELL_RUNNERS and " " in command.strip() and len(command) <= 4096:
            before = len(facts.ops)
            read_shell.read(command, facts, op.line - 1, 1)
            for index in range(before, len(facts.ops)):
                inner = facts.ops[index]
                facts.ops[index] = inner.replace(line=op.line, uses=inner.uses | op.uses,
                                                       calls=inner.calls | op.calls)
            added = added or len(facts.ops) > before
    if added:
        facts.ops.sort(key=lambda op: op.line)


def judge(ctx: Context, add, found, line_offset: int = 0) -> None:
    """Report the parsed behaviours of one file through `add` (security.scan_text's), skipping what the text rules
    already reported on the same line, or as an error anywhere in the file for the same rule."""
    if not ctx.markdown:
        sinks = ctx.has(_SINKS) or (ctx.file.endswith(".rb") and (b"`" in ctx.raw or b"%x" in ctx.raw)) or \
            b"./" in ctx.raw  # `./nh/bin/agent`: a program run by its path
        if not ctx.gates_off and not (sinks and (ctx.has(_SOURCES) or any(b in ctx.raw for b in _SOURCE_BYTES) or
                           _HIDDEN_NAME.search(ctx.raw)) or
                (ctx.has(_FETCHES) and _NAMED_SECRET.search(ctx.raw)) or (ctx.file.endswith((".ps1", ".psm1")) and _CALL_OPERATOR.search(ctx.raw))):
            return
        language = treesit.language_of(ctx.file, ctx.text)
        if language is not None:
            _judge_source(ctx, add, found, language, ctx.text, line_offset, line_offset, fence=False)
        return
    if ctx.markdown and (ctx.gates_off or (ctx.may_hold(_FENCE_FETCH_BYTES) and
                                                     ctx.may_hold(_FENCE_RUN_BYTES)) or
                                                    ctx.may_hold(_FENCE_SHELL_BYTES)) and ctx.fences:
        for start, end in ctx.fences[:50]:
            info = _FENCE_INFO.match(ctx.text, start)
            language = _FENCE_LANGUAGES.get(info.group(1).lower()) if info else None
            if language is None:
                continue
            body_start = ctx.text.find("\n", start) + 1
            body_end = ctx.text.rfind("\n", body_start, end) if end > body_start else end
            block = ctx.text[body_start:max(body_start, body_end)]
            low = block.lower()
            if not ctx.gates_off and not ((any(w in low for w in _FENCE_FETCH) and any(w in low for w in _FENCE_RUN))
                                          or any(w in low for w in _FENCE_SHELL)):
                continue
            _judge_source(ctx, add, found, language, block, ctx.text.count("\n", 0, body_start) + line_offset,
                          line_offset, fence=True)


def _judge_source(ctx: Context, add, found, language: str, source: str, offset: int, line_offset: int,
                  fence: bool) -> None:
    """Judge one script (or one fenced block): `offset` turns its lines into the file's, as every message names
    them; `line_offset` is the part of it that scan_text adds itself (SKILL.md's frontmatter)."""
    from skillyard.format.scan import (  # imported with the first script that passes the gates
        behaviour_decode,
        behaviour_download,
        behaviour_exfil,
        behaviour_persist,
        behaviour_shell,
        flows,
    )

    facts = facts_for(language, source)
    if facts is not None and offset:
        facts = Facts(facts.language, [op.replace(line=op.line + offset) for op in facts.ops],
                      facts.values)
    flow = flows.flow_of(facts, source) if facts is not None and facts.ops else None

    def report(rule, severity, line, message, fix) -> None:
        if any(f.rule == rule and (f.line == line or f.is_error) for f in found):
            return
        if fence:
            message = message.replace(f"The {facts.language if facts else language} script", f"The {language} block", 1)
        add(rule, severity, _index_of_line(ctx.text, line - line_offset), message, fix)

    if flow is not None:
        for module in (behaviour_download, behaviour_decode, behaviour_exfil):
            if fence and module is not behaviour_download:
                continue  # in Markdown only a complete download-and-run is judged: the text rules cover the rest
            module.judge(flow, ctx, report)
        if not fence:
            behaviour_persist.judge(flow, ctx, report, source)
    behaviour_shell.judge(flow, ctx, report, source, language)


