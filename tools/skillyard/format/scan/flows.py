"""Sources, sinks and the flows between them, over the facts any reader produced.

An op is classified by what it calls (the same table for every language: `curl`, `Invoke-WebRequest`, `fetch`,
`http.Get` all fetch), then values are followed: a variable assigned from a fetch holds downloaded content, one
assigned from a decoder holds decoded text, one that read a credential file holds a secret. A call inherits what
flows into it from the variables it reads and from the calls nested in it or feeding it (a pipeline, a command
substitution, a `.then` chain, a callback's parameter).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from skillyard.format.record import FrozenRecord
from skillyard.format.scan.facts import Facts, Op

FETCH_NAMES = frozenset({"curl", "wget", "fetch", "invoke-webrequest", "iwr", "invoke-restmethod", "irm",
                         "downloadstring", "downloadfile", "downloaddata", "downloadfileasync", "urlopen",
                         "urlretrieve", "start-bitstransfer", "got", "axios", "getasync", "getstringasync",
                         "get_response", "http.get", "https.get", "net.http.get", "net::http.get", "uri.open",
                         "open-uri", "httparty.get", "faraday.get", "requests.get", "http.newrequest"})
FETCH_FULL = frozenset({"http.get", "https.get", "axios.get", "net::http.get", "net::http.get_response", "uri.open",
                        "open-uri", "http.request", "https.request", "httparty.get", "faraday.get", "client.get",
                        "requests.get", "client.do", "http.client.get", "net::http.start"})
DECODE_NAMES = frozenset({"atob", "b64decode", "decode64", "strict_decode64", "frombase64string", "unhexlify",
                          "decodestring", "createdecipheriv", "decipher", "decrypt", "fromcharcode", "unpack1",
                          "inflate", "gunzip", "xxd", "unescape"})
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "pwsh", "powershell", "cmd", "cmd.exe", "powershell.exe"})
INTERPRETERS = frozenset({"python", "python3", "python2", "node", "perl", "ruby", "php", "deno", "bun", "osascript"})
CODE_RUNNERS = frozenset({"eval", "iex", "invoke-expression", "new function", "function", "instance_eval",
                          "class_eval", "module_eval", "runinnewcontext", "runinthiscontext", "runincontext",
                          "invoke-command", "source", ".", "scriptblock.create", "create", "new vm.script",
                          "invokescript", "newscriptblock", "_compile"})
PROCESS_RUNNERS = frozenset({"exec", "execsync", "spawn", "spawnsync", "execfile", "execfilesync", "system", "popen",
                             "popen3", "capture2", "capture3", "`", "start-process", "saps", "start", "command",
                             "commandcontext", "invoke-item", "ii", "startfile"})
CLIPBOARD = frozenset({"pbcopy", "xclip", "xsel", "wl-copy", "clip", "clip.exe", "set-clipboard", "writetext",
                       "clipboardy.write", "clipboard.write", "clipboard.writetext", "pyperclip.copy", "copy_to_clipboard"})
SEND_NAMES = frozenset({"nc", "ncat", "netcat", "socat", "telnet", "nslookup", "dig", "scp", "ftp", "sftp",
                        "send-mailmessage", "sendmail", "mail", "sendbeacon", "post", "put", "patch", "postform",
                        "post_form", "sendall", "uploadstring", "uploadfile", "uploaddata", "uploadvalues",
                        "postasync", "putasync"})
# Agents' own credentials, shell histories (commands typed with tokens in them), browser wallet extensions and other
# password stores: what 2026's skill-registry stealers collected besides SSH and cloud keys.
AGENT_AND_HISTORY_SECRETS = (r"\.claude[/\\]\.credentials|\.codex[/\\]auth\.json|\.cursor[/\\]mcp\.json|"
                             r"\.(?:bash|zsh|python|node_repl|psql|mysql|sh)_history\b|ConsoleHost_history|"
                             r"Local Extension Settings|\.pgpass\b|\.vault-token\b|\.password-store\b|"
                             r"\.config[/\\](?:op|gh)[/\\]|Keychains[/\\]|\*\.(?:pem|key|p12|pfx|kdbx|ppk|jks)\b")
SECRET_PATH = re.compile(
    r"\.ssh(?:/|\\|\b)(?!(?:[\w.-]+\.pub|known_hosts|config)\b)|\.(?:aws|kube|gnupg|netrc|npmrc|pypirc|"
    r"git-credentials|docker[/\\]config\.json|config[/\\](?:solana|gcloud|gh)(?![\w-])|ethereum|bitcoin|electrum)\b"
    r"|\bid_(?:rsa|ed25519|ecdsa|dsa)\b(?!\.pub)|/etc/shadow\b|\bLogin Data\b|\bwallet\.dat\b|\bkeychain\b|"
    r"\.aws[/\\]credentials|(?:^|[/\\~\s\"'])\.env(?:\.local|\.production)?\Z|Cookies\b|logins\.json\b|key4\.db\b|"
    + AGENT_AND_HISTORY_SECRETS, re.I)
STARTUP = re.compile(
    r"\.(?:bashrc|bash_profile|zshrc|zprofile|zshenv|profile|bash_login)\b|config\.fish\b|"
    r"Microsoft\.PowerShell_profile\.ps1|Library/Launch(?:Agents|Daemons)|\.config/systemd/|/etc/systemd/system|"
    r"/etc/cron|/var/spool/cron|CurrentVersion\\+Run(?:Once)?\b|Start Menu\\+Programs\\+Startup|"
    r"\\Startup\\|\.config/autostart|authorized_keys\b|/etc/rc\.local|/etc/profile\.d|/etc/init\.d", re.I)
_RUN_BY_PATH = ("./", ".\\", "/tmp/", "~/", "/var/tmp/", "/dev/shm/")  # noqa: S108 (paths a script runs, named)
READ_FILE = frozenset({"cat", "get-content", "gc", "type", "readfile", "readfilesync", "read", "read_text",
                       "read_bytes", "binread", "readlines", "open", "createreadstream"})
_ENV_COMMANDS = frozenset({"env", "printenv", "export", "set", "get-childitem", "gci", "dir", "ls", "getenviron",
                           "getenvironmentvariables", "environ", "os.environ"})


# Commands that print a secret (a token, a password, the clipboard's contents): their output is the secret.
_TOKEN_COMMANDS = {"gh": ("auth", "token"), "aws": ("configure", "get"), "gcloud": ("auth", "print-access-token"),
                   "az": ("account", "get-access-token"), "security": ("find-generic-password",),
                   "kubectl": ("config", "view"), "op": ("read",), "vault": ("read",)}
_TOKEN_SET = {(name, *words) for name, words in _TOKEN_COMMANDS.items()} | {
    ("gcloud", "auth", "print-identity-token"), ("security", "find-internet-password"), ("security", "dump-keychain"),
    ("vault", "kv")}
_CLIPBOARD_READ = frozenset({"pbpaste", "wl-paste", "get-clipboard", "paste", "clipboard.readtext", "readtext"})
# An option that hands a credential file to the tool (which logs in with it; the script never reads it).
_OPTIONS = ("-i", "--netrc-file", "--kubeconfig", "--homedir", "--identity", "--key", "--cert", "--config",
            "--credentials-file", "--key-file", "-identityfile")
_SECRET_WORDS = re.compile(r"key|token|secret|pass|cred|auth|api|session|cookie|private", re.I)
# Methods that put their arguments into the object they are called on (a form, a buffer, a list, a request).
_MUTATORS = frozenset({"set", "add", "append", "push", "write", "writestring", "update", "extend", "insert", "put",
                       "setdefault", "add_header", "attach", "concat"})
_ENV_MEMBER = re.compile(r"(?:process\.env\.|process\.env\[['\"]|\$env:|ENV\[['\"]|os\.Getenv\(\")([A-Za-z_][\w]*)")


def _as_option(words: tuple[str, ...], k: int) -> bool:
    """The word at `k` is an option's value (`-i ~/.ssh/key`, `--netrc-file=~/.netrc`, `"ssh -i ~/.ssh/key"`)."""
    word = words[k]
    if word.lower().startswith(tuple(o + "=" for o in _OPTIONS)) or re.match(r"ssh\s+(?:-\w+\s+)*-i\s", word):
        return True
    return k > 0 and words[k - 1].lower() in _OPTIONS


_FETCH_GLOBALS = ("window", "globalthis", "self", "this", "global", "deno")  # receivers of the Fetch API


class Source(FrozenRecord):
    """Where a flow starts: `kind` ("fetch", "decode", "secret", "env", ...), its `line`, and `what` in words (for
    the finding). A frozen record, equal and hashed by its fields as the frozen dataclass it was."""

    __slots__ = FIELDS = ("kind", "line", "what")

    def __init__(self, kind: str, line: int, what: str):
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "what", what)

    def _values(self) -> tuple:
        return (self.kind, self.line, self.what)


def is_fetch(op: Op) -> bool:
    if op.name == "fetch" and "." in op.full and op.full.split(".", 1)[0] not in _FETCH_GLOBALS and \
            not any("://" in w for w in op.words):
        return False  # `ARGV.fetch(0)`, `ENV.fetch("X")`, `opts.fetch(:k)`: Ruby's Hash#fetch, no download
    if op.name in FETCH_NAMES or op.full in FETCH_FULL:
        return not (op.name in ("curl", "wget") and not any("://" in w or "$" in w or w.startswith("www.")
                                                          for w in op.words) and op.words == ())
    if op.name == "open" and any(w.startswith(("http://", "https://")) for w in op.words[:1]):
        return True
    if "ownload" not in op.text and "ebClient" not in op.text and "ebclient" not in op.text:
        return False
    low = op.text.lower()
    return ".downloadstring(" in low or ".downloaddata(" in low or "net.webclient" in low


def is_decode(op: Op) -> bool:
    if op.name in DECODE_NAMES:
        return True
    if op.name in ("base64", "base32", "basenc"):
        return any(w in ("-d", "--decode", "-D") for w in op.words)
    if op.name == "openssl":
        return "-d" in op.words
    if op.full in ("buffer.from", "new buffer") and len(op.words) > 1:
        return op.words[1] in ("base64", "hex", "base64url")
    if op.name in ("decodestring", "decode") and "base64" in op.full:
        return True
    if op.name == "rev" and op.calls:
        return True  # `echo … | rev`: text stored reversed
    if op.name == "tr" and any(w.startswith(("N-Z", "n-z")) for w in op.words):
        return True  # rot13
    if op.name == "pack" and op.words and op.words[0] in ("c*", "C*", "U*", "m", "m0", "H*"):
        return True
    return op.name in ("-encodedcommand", "-enc")


def runs_code(op: Op, child_process: bool) -> str | None:
    """How the op runs text as code or a command, or None: "eval" (evaluates its argument), "shell" (a shell or
    interpreter reading its input or `-c`), "process" (starts a command or a file)."""
    name = op.name
    if name in CODE_RUNNERS or op.full in ("vm.runinnewcontext", "vm.runinthiscontext"):
        return "eval"
    if name in SHELLS or name in INTERPRETERS:
        return "shell"
    if name in PROCESS_RUNNERS:
        if name in ("exec", "execsync", "spawn", "spawnsync", "execfile", "execfilesync") and not child_process \
                and op.full not in ("exec.command", "syscall.exec", "process.spawn", "kernel.exec", "kernel.spawn"):
            return "process" if op.full in ("exec", "spawn") and "`" in op.text else None
        if name == "start" and op.full != "start":
            return None
        if name == "command" and op.full not in ("exec.command", "exec.commandcontext"):
            return None
        return "process"
    if name.startswith("$") and op.text.lstrip().startswith("&"):
        return "process"  # PowerShell's call operator: `& $dest`
    if name.startswith(_RUN_BY_PATH) or \
            (name.startswith("$") and ("/" in name or "\\" in name)) or \
            name.endswith((".exe", ".msi", ".bat", ".cmd", ".scr", ".ps1", ".appimage")):
        return "process"
    return None


def sends(op: Op) -> bool:
    """Whether the op sends data out: a POST or upload, a socket write, a DNS lookup of a built name, a mail."""
    name, words = op.name, op.words
    if name == "curl":
        return any(w in ("-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "-F", "--form", "-T",
                         "--upload-file", "--json") or w.startswith(("-d@", "--data=", "-F", "-T")) or
                   (w.upper() in ("POST", "PUT") and i and words[i - 1] in ("-X", "--request"))
                   for i, w in enumerate(words))
    if name == "wget":
        return any(w.startswith(("--post-data", "--post-file", "--body-data", "--body-file")) for w in words)
    if name in ("invoke-webrequest", "iwr", "invoke-restmethod", "irm"):
        low = [w.lower() for w in words]
        return "-body" in low or "-infile" in low or any(w in ("post", "put") for w in low)
    if name in ("fetch", "request", "axios") or op.full in ("http.request", "https.request"):
        low = op.text.lower()
        return "body" in low or "post" in low or "put" in low
    if name in ("nc", "ncat", "netcat", "socat", "telnet"):
        return len(words) >= 2
    if name in ("nslookup", "dig", "host"):
        return any("$" in w for w in words) or bool(op.uses)
    if name == "gh" and op.words[:2] in (("gist", "create"), ("gist", "edit")):
        return True
    if name == "git" and op.words[:1] == ("push",):  # to an address written out (not the project's own remote)
        return any("://" in w or ("@" in w and ":" in w) for w in words[1:])
    if name in ("sendmessage", "senddocument", "storbinary", "storlines"):
        return True
    if name in ("scp", "sftp", "rsync"):
        return any("@" in w and ":" in w for w in words)
    if name in ("post", "put", "patch", "postform", "post_form", "postasync", "putasync", "post_form"):
        return op.full.split(".")[0] in ("requests", "httpx", "axios", "http", "net::http", "httparty", "faraday",
                                         "client", "session", "got", "ky", "superagent", "…") or "." in op.full
    return name in SEND_NAMES and name not in ("post", "put", "patch")


def writes_to(op: Op) -> list[str]:
    """The paths an op writes: shell redirects, `tee`, `cp`/`mv` targets, `curl -o`, `-OutFile`, `writeFile(p)`."""
    out = [r for r in op.redirects if r and not r.startswith("/dev/") and not r.isdigit() and r != "&1"]
    name, words = op.name, op.words
    if name == "tee":
        out += [w for w in words if not w.startswith("-")]
    elif name in ("cp", "mv", "install", "ln", "copy-item", "move-item", "copy", "move") and len(words) >= 2:
        out.append(words[-1])
    elif name == "curl" or name == "wget":
        for i, w in enumerate(words[:-1]):
            if w in ("-o", "--output", "-O", "--output-document") and (name == "wget" or w != "-O") or name == "curl" and w.startswith("-") and not w.startswith("--") and w.endswith("o") and len(w) <= 6:
                out.append(words[i + 1])
        if name == "curl" and any(w.startswith("-") and "O" in w and not w.startswith("--") for w in words):
            out += [w.rstrip("/").rsplit("/", 1)[-1] for w in words if "://" in w]
        if name == "wget" and not any(w in ("-O", "--output-document", "-qO-", "-O-") for w in words):
            out += [w.rstrip("/").rsplit("/", 1)[-1] for w in words if "://" in w]
    elif name in ("invoke-webrequest", "iwr", "invoke-restmethod", "irm", "start-bitstransfer"):
        low = [w.lower() for w in words]
        for key in ("-outfile", "-destination"):
            if key in low[:-1]:
                value = words[low.index(key) + 1]
                named = re.search(r"(?i)" + key + r"\s+[\"']?(\$[\w:]+)\b", op.text) if not value else None
                out.append(value or (named.group(1) if named else ""))  # `-OutFile $dest`: the variable
    elif name in ("set-content", "add-content", "out-file", "sc", "ac", "new-item"):
        low = [w.lower() for w in words]
        if "-path" in low[:-1]:
            out.append(words[low.index("-path") + 1])
        elif "-filepath" in low[:-1]:
            out.append(words[low.index("-filepath") + 1])
        elif words and not words[0].startswith("-"):
            out.append(words[0])
    elif name in ("writefile", "writefilesync", "appendfile", "appendfilesync", "createwritestream", "write",
                  "binwrite", "write_text", "write_bytes", "create", "openfile", "downloadfile", "urlretrieve",
                  "copyfile", "copyfilesync", "rename", "renamesync", "copy_stream"):
        if name in ("downloadfile", "urlretrieve", "copyfile", "copyfilesync", "rename", "renamesync", "copy_stream"):
            if len(words) >= 2:
                out.append(words[1])
        elif words and op.full not in ("process.stdout.write", "…write", "res.write") and "stdout" not in op.full:
            out.append(words[0])
    elif name == "open" and len(words) >= 2 and words[1][:1] in ("w", "a"):
        out.append(words[0])
    return [w for w in out if w]


_EXTRACTORS = frozenset({"tar", "bsdtar", "unzip", "7z", "7za", "expand-archive", "extractall", "extract",
                         "extractallto", "ditto", "x", "unrar", "gunzip", "cpio"})


def extracts(op: Op) -> tuple[list[str], str] | None:
    """(archive words, destination folder) when an op unpacks an archive: `tar xzf a.tgz -C d`, `unzip a.zip -d d`,
    `Expand-Archive a.zip -DestinationPath d`, `zf.extractall(d)`; the destination is "" for the working folder."""
    name, words = op.name, op.words
    if name not in _EXTRACTORS:
        return None
    low = [w.lower() for w in words]
    if name in ("tar", "bsdtar") and not any(w.startswith("-x") or (w[:1] != "-" and "x" in w and k == 0) or
                                             w == "--extract" for k, w in enumerate(low)):
        return None
    if name in ("7z", "7za") and "x" not in low[:1] and "e" not in low[:1]:
        return None
    dest = ""
    for key in ("-c", "-d", "-destinationpath", "--directory"):
        if key in low[:-1]:
            dest = words[low.index(key) + 1]
    dest = dest or next((w[2:] for w in words if w.startswith("-o") and name in ("7z", "7za")), "")
    if name in ("extractall", "extractallto", "extract") and words and not dest:
        dest = words[0] if "." not in words[0].rsplit("/", 1)[-1] else ""
    return [w for w in words if w and not w.startswith("-")], dest


def chmods(op: Op) -> list[str]:
    """The files an op makes executable."""
    if op.name == "chmod" and op.words:
        mode = op.words[0]
        if "x" in mode or (mode.isdigit() and any(c in "1357" for c in mode)):
            return [w for w in op.words[1:] if not w.startswith("-")]
    if op.name in ("chmod", "chmodsync") and len(op.words) >= 1 and op.full != "chmod":
        return [op.words[0]]
    if op.full in ("os.chmod", "file.chmod", "fileutils.chmod", "fs.chmod", "fs.chmodsync", "fs.promises.chmod"):
        return [w for w in op.words if w and not w.isdigit()][:1] or [op.words[0] if op.words else ""]
    return []


def run_target(op: Op, child_process: bool) -> str | None:
    """The file an op runs (`sh ./x`, `./x`, `Start-Process x`, `spawn(x)`, `exec.Command(x)`), or None."""
    if op.name in ("hdiutil", "installer", "msiexec") and len(op.words) >= 2:
        return op.words[1]  # `hdiutil attach x.dmg`, `installer -pkg x.pkg`, `msiexec /i x.msi`: installs and runs x
    how = runs_code(op, child_process)
    if how is None:
        return None
    if how == "process" and not op.name.startswith(("./", ".\\", "/", "~", "$")) and \
            not op.name.endswith((".exe", ".msi", ".bat", ".cmd", ".scr", ".ps1", ".appimage")):
        first = next((w for w in op.words if w and not w.startswith("-")), "")
        if op.name in ("start-process", "saps", "invoke-item", "ii", "start") and op.words:
            low = [w.lower() for w in op.words]
            if "-filepath" in low[:-1]:
                return op.words[low.index("-filepath") + 1]
        return first or None
    if how == "process":
        return op.name
    if how == "shell":
        return next((w for w in op.words if w and not w.startswith("-")), None)
    return None


def same_file(a: str, b: str) -> bool:
    """Whether two spellings name the same file (`/tmp/x`, `$TMP/x`, `"x"`): the same last path segment, kept
    long enough to mean something."""
    a, b = a.strip("\"'").replace("\\", "/"), b.strip("\"'").replace("\\", "/")
    if a == b and a:
        return True
    base_a, base_b = a.rstrip("/").rsplit("/", 1)[-1], b.rstrip("/").rsplit("/", 1)[-1]
    return bool(base_a) and base_a == base_b and len(base_a) >= 2 and base_a not in (".", "..")


def _source_order(source: Source) -> tuple[int, str, str]:
    return source.line, source.kind, source.what


def flow_of(facts: Facts, text: str) -> Flow:
    """The facts' flow, computed once (the per-file judge and the skill-level flows share it)."""
    if facts.flow is None:
        facts.flow = Flow(facts, text)
    return facts.flow  # type: ignore[return-value]


class Flow:
    """Every op's sources, computed once per file."""

    def __init__(self, facts: Facts, text: str):
        self.facts = facts
        self.child_process = "child_process" in text or facts.language not in ("javascript", "typescript") or \
            any(op.name in ("require", "import") and any(w.endswith("child_process") for w in op.words[:1])
                for op in facts.ops)  # `'child' + '_process'`, `import('node:' + …)`
        self.sources: list[tuple[Source, ...]] = []
        self._run(text)

    def own(self, op: Op) -> set[Source]:
        found: set[Source] = set()
        if is_fetch(op):
            url = next((w for w in op.words if "://" in w), "")
            found.add(Source("fetch", op.line, f"downloads {('`' + url[:80] + '`') if url else 'from the network'}"))
        if is_decode(op):
            found.add(Source("decode", op.line, f"decodes hidden text (`{op.name}`)"))
        joined = "\n".join(op.words)
        if joined and op.name not in ("echo", "printf", "=", "write-host", "console.log", "puts", "print") and \
                SECRET_PATH.search(joined):  # one search over every word, then the word that matched
            hits = [k for k, w in enumerate(op.words) if SECRET_PATH.search(w) and not _as_option(op.words, k)]
            if hits or not op.words:
                word = max((op.words[k] for k in hits), key=len, default=joined)
                found.add(Source("secret", op.line, f"reads `{word[:60]}`"))
        low = tuple(w.lower() for w in op.words[:2])
        if (op.name, *low[:len(_TOKEN_COMMANDS.get(op.name, ("\0",)))]) in _TOKEN_SET or op.name in _CLIPBOARD_READ or \
                (op.name in ("xclip", "xsel") and ("-o" in op.words or "--output" in op.words)):
            found.add(Source("secret", op.line, f"reads a secret with `{' '.join((op.name, *op.words[:3]))[:60]}`"))
        if op.name in ("get", "getenv", "fetch", "getenvironmentvariable") and op.words and \
                ("environ" in op.full or "getenv" in op.full or op.full.startswith("env.")) and \
                _SECRET_WORDS.search(op.words[0]):  # one named secret (`os.environ.get("GITHUB_TOKEN")`)
            found.add(Source("envvar", op.line, f"reads the secret `{op.words[0][:40]}` from the environment"))
        if op.name == "system" and op.words[:1] and op.words[0] in _CLIPBOARD_READ:
            found.add(Source("secret", op.line, f"reads the clipboard with `{op.words[0]}`"))  # run(["pbpaste"])
        if op.name == "=" and "env" in op.text:  # `const k = process.env.OPENAI_API_KEY`, `$k = $env:GITHUB_TOKEN`
            named = _ENV_MEMBER.search(op.text)
            if named and _SECRET_WORDS.search(named.group(1)):
                found.add(Source("envvar", op.line, f"reads the secret `{named.group(1)[:40]}` from the environment"))
        if op.name in READ_FILE:
            path = next((w for w in op.words if w and not w.startswith("-") and ("/" in w or "\\" in w or "." in w)), "")
            if path:
                found.add(Source("file", op.line, path))  # what another script of the skill may have written
        if "$ENV" in op.uses or (op.name in _ENV_COMMANDS and (
                (op.name in ("env", "printenv") and not op.words) or (op.name == "export" and op.words == ("-p",))
                or (op.name == "set" and not op.words) or any(w.lower() in ("env:", "env:\\", "env:*") for w in op.words)
                or op.name in ("getenviron", "getenvironmentvariables", "os.environ") or op.full == "os.environ")):
            found.add(Source("env", op.line, "reads the whole environment (every variable, secrets included)"))
        return found

    def _run(self, text: str) -> None:
        ops = self.facts.ops
        own = [self.own(op) for op in ops]
        by_name: dict[str, list[int]] = {}  # op indices per callee, in source order
        for index, op in enumerate(ops):
            by_name.setdefault(op.name, []).append(index)
            if op.full != op.name:
                by_name.setdefault(op.full, []).append(index)
        for found in by_name.values():
            found.sort(key=lambda i: ops[i].line)  # readers emit nearly in line order; bisect needs it exact
        lines = {name: [ops[i].line for i in found] for name, found in by_name.items()}
        variables: dict[str, set[Source]] = {}
        result: list[set[Source]] = [set() for _ in ops]
        for _ in range(2):  # a second pass: a value read in a function defined above the assignment
            for index, op in enumerate(ops):
                if not (op.calls or op.uses or own[index]):
                    continue
                got = set(own[index])
                for name in op.calls:
                    found = by_name.get(name)
                    if not found:
                        continue
                    at = lines[name]  # the call on the same line, else the nearest one before (12 lines at most)
                    lo, hi = bisect_left(at, op.line), bisect_right(at, op.line)
                    candidates = [found[k] for k in range(lo, min(hi, lo + 8)) if found[k] != index]
                    if not candidates and lo > 0 and 0 < op.line - at[lo - 1] <= 12:
                        candidates = [found[lo - 1]]
                    for other in candidates:
                        got |= own[other] | result[other]
                for name in op.uses:
                    got |= variables.get(name, set())
                if op.name in ("grep", "select-string", "findstr") and op.words and \
                        not _SECRET_WORDS.search(" ".join(op.words)) and "-v" not in op.words:
                    got = {src for src in got if src.kind != "env"}  # `printenv | grep '^CI_'`: named variables
                if len(got) > 16:
                    got = set(sorted(got, key=_source_order)[:16])
                result[index] = got
                if op.target is not None:
                    variables.setdefault(op.target, set()).update(got)
                elif got and op.name in _MUTATORS and "." in op.full:  # `v.Set("e", secret)`: v now holds it
                    receiver = op.full.split(".", 1)[0]
                    for used in op.uses:
                        if used.lower() == receiver:
                            variables.setdefault(used, set()).update(got)
        # Each op's sources in one total order (line, kind, words), never a set's: a finding names the first of them,
        # and a set's order follows the interpreter's string hashes (the same file got two messages under two seeds).
        self.sources = [tuple(sorted(s, key=_source_order)) for s in result]
