"""Behaviour rules about running code the skill did not ship: download and execute (every common spelling, and
"extract this archive and run the .exe") and decode then execute."""

from __future__ import annotations

import re

from skillyard.format.scan import gates, precision
from skillyard.format.scan.context import (  # noqa: F401
    _CHMOD_OR_PROCESS,
    _URL,
    ERROR,
    WARNING,
    Add,
    Context,
    _discussed,
    _host_is_vendor,
    _url_note,
    _words,
)
from skillyard.format.scan.precision import known_vendor_url

# ---------------------------------------------------------------- download and execute
_DOWNLOAD_EXEC_WORDS = ("curl", "wget", "iex", "irm", "iwr", "invoke-", "urlopen", "fetch(", "webclient", "requests.", ".then(",
                        "exec", "eval")  # `exec(s.get(u).text)`: a session of any name
# What every DOWNLOAD_EXEC match holds as a word, in any file (`exec(s.get(u).text)` names no downloader).
_DOWNLOAD_GATE = _words("curl", "wget", "iex", "invoke", "irm", "iwr", "urlopen", "fetch", "webclient",
                        "downloadstring", "exec", "eval", "function")
# ... and every _SAVE match, then every _MAKE_EXEC one (`subprocess.Popen(["/tmp…` is one word, `subprocess`).
_SAVE_GATE = _words("curl", "wget", "urlretrieve", "invoke", "downloadfile", "requests", "wb")
_MAKE_EXEC_GATE = _CHMOD_OR_PROCESS | _words("subprocess")
_ARCHIVE_NEEDLES = gates.Bytes(b"password", b"passcode", b"pass:")  # inside `passwords`, `bypass:` too
_SAVE_WORDS = ("curl", "wget", "urlretrieve", "invoke-", "downloadfile", "requests.", "'wb'", '"wb"')
_DL = r"(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)"
DOWNLOAD_EXEC = re.compile(
    r"\b(?:ba|z|da|k)?sh\s+-c\s+[\"']?\$\(\s*" + _DL + r"\b[^\n]{0,300}"          # bash -c "$(curl …)"
    r"|\beval\s+[\"']?\$\(\s*" + _DL + r"\b[^\n]{0,300}"                            # eval "$(curl …)"
    r"|(?:^|[;&|]\s*|\bthen\s+)(?:source|\.)\s+<\(\s*" + _DL + r"\b[^\n]{0,300}"    # source <(curl …)
    r"|\b(?:python[0-9.]*|node|perl|ruby)\s+<\(\s*" + _DL + r"\b[^\n]{0,300}"
    r"|\b(?:iex|Invoke-Expression)\b\s*\(*\s*(?:\(\s*)?(?:" + _DL + r"|New-Object\s+(?:System\.)?Net\.WebClient|"
    r"\[?(?:System\.)?Net\.WebClient)[^\n]{0,300}"                                  # iex (irm …), iex (New-Object …)
    r"|" + _DL + r"\b[^\n|]{0,300}\|\s*(?:iex|Invoke-Expression)\b[^\n]{0,300}"           # irm … | iex
    r"|\.DownloadString\([^\n]{0,300}\)[^\n]{0,300}\|\s*(?:iex|Invoke-Expression)\b"
    r"|\b(?:curl|wget)\b[^\n|]{0,300}\|\s*(?:sudo\s+)?(?:node|perl|ruby|php)\b[^\n]{0,300}"
    r"|(?<![.\w])(?:exec|eval)\s*\(\s*(?:[A-Za-z_][\w.]{0,60}\.)?urlopen\([^\n]{0,300}"  # any alias: u.urlopen
    r"|(?<![.\w])(?:exec|eval)\s*\(\s*(?:requests|httpx|[A-Za-z_]\w{0,20})\.get\([^\n]{0,300}"
    r"|\.then\(\s*(?:eval|Function)\s*\)"
    r"|(?<![.\w])(?:eval|Function)\s*\(\s*await\s*\(?\s*(?:await\s*)?fetch\([^\n]{0,300}",
    re.I | re.M)
# A download saved to a file, made executable and started, a few lines apart (or in one script).
_SAVE = re.compile(r"\b(?:curl\b[^\n]{0,300}\s(?:-o|--output|-O|-\w*o)\s*\S+|wget\b[^\n]{0,300}\s(?:-O|--output-document)\s*\S+|"
                   r"wget\s+(?:-q\s+)?https?://\S+|urlretrieve\(|Invoke-WebRequest\b[^\n]{0,300}-OutFile|"
                   r"\.DownloadFile\(|requests\.get\([^\n]{0,300}|open\([^\n]{0,300}[\"']wb[\"'])", re.I)
_MAKE_EXEC = re.compile(r"\bchmod\s+(?:[ugoa]*\+[rwx]*x|[0-7]*[157][0-7]{0,2}\b)|[\"']chmod[\"']|"
                        r"\bhdiutil\s+attach\b|\binstaller\s+-pkg\b|\bmsiexec\b|"
                        r"\bStart-Process\b|\bos\.chmod\(|\bsubprocess\.Popen\(\[[\"']/tmp", re.I)
_ARCHIVE_RUN = re.compile(r"password|passcode|pass:", re.I)


# Runners that fetch and run code from an address in one command, with no download step to see: Deno and npx/uvx
# given a URL or a git repository, Windows' own downloaders (certutil, mshta, regsvr32), a dynamic `import()` of
# a URL, `go run module@version`. And package installs from an address instead of the index (setup code runs).
REMOTE_RUN = re.compile(
    r"\bdeno\s+run\b[^\n]{0,200}?https?://\S+|\bnpx\s+(?:-y\s+|--yes\s+)?(?:github:|git\+|https?://)\S+|"
    r"\b(?:uvx|pipx\s+run)\b[^\n]{0,200}?(?:git\+)?https?://\S+|\bcertutil(?:\.exe)?\b[^\n]{0,100}-urlcache\b[^\n]{0,200}|"
    r"\b(?:mshta|regsvr32|rundll32)(?:\.exe)?\b[^\n]{0,200}?https?://\S+|\bimport\(\s*[\"'`]https?://\S+|"
    r"\bgo\s+run\s+[\w.-]+\.[a-z]{2,}/\S+@\S+|\bbitsadmin(?:\.exe)?\b[^\n]{0,100}?/transfer\b[^\n]{0,200}?https?://\S+|"
    r"\bmsiexec(?:\.exe)?\b[^\n]{0,100}?https?://\S+", re.I)
_REMOTE_WORDS = _words("deno", "npx", "uvx", "pipx", "certutil", "mshta", "regsvr32", "rundll32", "import", "go",
                       "bitsadmin", "msiexec")
_REMOTE_NEEDLES = ("deno", "npx", "uvx", "pipx", "certutil", "mshta", "regsvr32", "rundll32", "import(", "go",
                   "bitsadmin", "msiexec")  # `go` (not `go run`: a tab or two spaces may come between)
PIP_URL = re.compile(r"\bpip3?\s+install\s+(?:-\S+\s+)*(?:git\+)?https?://\S+", re.I)


def remote_run(ctx: Context, add: Add) -> None:
    if ctx.gates_off or ctx.has(_REMOTE_WORDS):  # (the address may run on from a word: `x.exeHTTPS://`)
        for match in ctx.finditer(REMOTE_RUN, _REMOTE_NEEDLES):
            download_finding(ctx, add, "security-download-exec", match.start(),
                             precision.module_as_url(match.group().strip()))  # `go run host/mod@v`: judged by host
    if ctx.gates_off or ctx.has(_PIP_WORD):
        for match in ctx.finditer(PIP_URL, ("pip", "pip3")):  # `pip3` is a word of its own
            url = _URL.search(match.group())  # a known publisher's repository over HTTPS is no lure's address
            lured = ctx.prose and ctx.lured(match.start()) and not (
                url and url.group().lower().startswith("https://") and _host_is_vendor(url.group()))
            add("security-download-exec", ERROR if lured else WARNING, match.start(),
                f"Installs a package from an address instead of the package index (`{match.group()[:80]}`): its "
                "setup code runs unreviewed" + (", under a heading that presents it as required." if lured else "."),
                "Install the released package from the index, pinned to a version.")


_PIP_WORD = _words("pip", "pip3")


# A download saved to a path, in any language or build file (a Makefile, a Dockerfile, a batch file, VBScript,
# Perl): `-o P`, `-O P`, `-OutFile P`, `getstore(URL, P)`, `SaveToFile P`, `DownloadFile(URL, P)`, `urlretrieve`.
_SAVED = re.compile(r"(?:\s(?:-OutFile|-Destination|--output-document|--output|-o|-\w*O)(?:[ \t]+|=)[\"']?|"
                    r"(?:getstore|urlretrieve|DownloadFile|copy)\([^,\n]{1,300}?,\s*[\"']|SaveToFile\s*[\"'])"
                    r"([^\s\"',)]{2,200})", re.I)
_RUNNER = r"(?:\b(?:sh|bash|zsh|source|start|call|python[0-9.]*|node|perl|ruby|php|cscript|wscript|mshta|" \
          r"Start-Process|system|exec|spawn|Run|open)\b[\s(\"'\[]*|^[ \t]*|&&[ \t]*|;[ \t]*|\|\|[ \t]*)"
# npm runs these scripts of package.json at install time, before anyone reads them.
_NPM_HOOK = re.compile(r"\"(?:pre|post)?install\"\s*:\s*\"(?:[^\"\\\n]|\\.){0,400}?(?:curl|wget|https?://|\.get\(|"
                       r"fetch\(|Invoke-WebRequest|iwr|irm)", re.I)
_PHP_FETCH_EVAL = re.compile(r"\beval\s*\([^\n]{0,300}(?:file_get_contents|curl_exec)|"
                             r"(?:file_get_contents|curl_exec)\([^\n]{0,300}\n(?:[^\n]*\n){0,12}?[^\n]*\beval\s*\(", re.I)


_SAVED_RUN_SUFFIXES = (".vbs", ".bat", ".cmd", ".pl", ".php", ".lua", ".command", ".applescript")


def _saved_then_run_reads(file: str) -> bool:
    """Whether `saved_then_run` looks at a file of this (lowercase) name at all: npm's package.json, PHP, and the
    build and batch files the parsed readers do not cover; the URL test is skipped for the rest."""
    return file.endswith(("package.json", *_SAVED_RUN_SUFFIXES)) or \
        file.rsplit("/", 1)[-1].startswith(("makefile", "dockerfile"))


def saved_then_run(ctx: Context, add: Add) -> None:
    """A download saved to a path and that path run later in the same file, whatever the language."""
    if ctx.file.endswith("package.json") and "install" in ctx.text:
        hook = _NPM_HOOK.search(ctx.text)
        if hook:
            add("security-download-exec", ERROR, hook.start(),
                f"An npm install hook fetches code from the network (`{hook.group()[:80]}`): it runs at `npm install`, "
                "before anyone reads it.", "Remove the hook; ship the code in the package.")
            return
    if ctx.file.endswith(".php") and "eval" in ctx.text:
        found = _PHP_FETCH_EVAL.search(ctx.text)
        if found:
            add("security-download-exec", ERROR, found.start(), "Fetches code over the network and runs it with "
                "`eval`: whatever that host serves runs, unreviewed.", "Ship the code under scripts/ instead.")
            return
    if not ctx.file.rsplit("/", 1)[-1].lower().startswith(("makefile", "dockerfile")) and \
            not ctx.file.endswith(_SAVED_RUN_SUFFIXES):
        return  # Markdown and the parsed script languages have their own rules (download_finding, the flows)
    for save in _SAVED.finditer(ctx.text):
        path = save.group(1).strip("\"'")
        base = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        if len(path) < 2 or base in ("-", "/dev/null", "") or \
                not _URL.search(ctx.text, max(0, save.start() - 600), ctx.text.find("\n", save.end()) % (len(ctx.text) + 1)):
            continue
        needle = re.escape(base) if len(base) >= 3 else re.escape(path)
        run = re.search(_RUNNER + r"[^\s\"'\n]*" + needle + r"(?![\w.])", ctx.text[save.end():], re.I | re.M)
        if run and precision.container_vendor_step(ctx.file, ctx.text[max(0, save.start() - 600):save.end() + 300]):
            return  # a container image built with a well-known vendor's documented installer (scan/precision.py)
        if run and _host_is_vendor(ctx.text[max(0, save.start() - 600):save.end() + 300], ctx):
            add("security-download-exec", WARNING, save.start(), f"Downloads a vendor's installer to `{path[:60]}` "
                "and runs it.", "Prefer the vendor's package, or verify the installer's checksum before running it.")
            return
        if run:
            add("security-download-exec", ERROR, save.start(),
                f"Downloads a program{_url_note(ctx.text[max(0, save.start() - 600):save.end()])}, saves it as `{path[:60]}` and runs it "
                f"(line {ctx.text.count(chr(10), 0, save.end() + run.start()) + 1}): code nobody reviewed runs with the "
                "user's rights.", "Ship the program's source under scripts/, or name a vendor release the user "
                "installs themselves and verify its checksum.")
            return


def download_exec(ctx: Context, add: Add) -> None:
    remote_run(ctx, add)
    if _saved_then_run_reads(ctx.file) and "://" in ctx.text:
        saved_then_run(ctx, add)
    if ctx.gates_off or ctx.has(_DOWNLOAD_GATE):
        for match in ctx.finditer(DOWNLOAD_EXEC, _DOWNLOAD_EXEC_WORDS):
            download_finding(ctx, add, "security-download-exec", match.start(), match.group().strip())
    if ctx.gates_off or ctx.has(_SAVE_GATE) and ctx.has(_MAKE_EXEC_GATE):
        for match in ctx.finditer(_SAVE, _SAVE_WORDS):
            start, end = ctx.block(match.start(), 4)
            if _MAKE_EXEC.search(ctx.text, match.start(), end if not ctx.code else len(ctx.text)):
                command = match.group().strip()
                if not _host_is_vendor(ctx.text[start:end]):
                    add("security-download-exec", ERROR, match.start(),
                        f"Downloads a program{_url_note(ctx.text[start:end])}, makes it executable and runs it: "
                        "code nobody reviewed runs with the user's rights.",
                        "Ship the program's source under scripts/, or name a vendor release the user installs "
                        "themselves and verify its checksum.")
                    break
                del command


def download_finding(ctx: Context, add: Add, rule: str, index: int, command: str) -> None:
    """One download-and-run command: a warning for a vendor's installer (or a prose mention with no address), an
    error for any other host or under a lure."""
    from skillyard.format.scan.behaviour_pipe import stdin_is_data  # read only when a download is found

    at = ctx.text.find(command, index)
    if at >= 0 and stdin_is_data(ctx.text, at, at + len(command)):
        return  # `curl … | python3 -c 'print(json.load(sys.stdin)[…])'`: the download is parsed, not run
    if not _URL.search(command):
        command = ctx.line_at(index).strip()
    if ctx.prose and not _URL.search(command) and not ctx.in_fence(index):
        if not (ctx.negated(index) or _discussed(ctx, index)):
            add(rule, WARNING, index, f"Describes downloading and running code in one step: `{command[:80]}`.",
                "Download to a file, verify its checksum, then run it; or vendor the script under scripts/.")
        return
    line_start = ctx.text.rfind("\n", 0, index) + 1
    bare = None if _URL.search(command) else _BARE_HOST.search(command)
    if bare and not (ctx.prose and ctx.lured(index)) and _host_is_vendor("https://" + bare.group(1),
                                                                        ctx if ctx.markdown else None):
        add(rule, WARNING, index, f"Downloads and runs a vendor installer in one step, from `{bare.group(1)[:60]}` "
            f"written without a scheme (PowerShell and curl try plain HTTP first): `{command[:80]}`.",
            "Write the address with https://, or install the vendor's package.")
        return
    bang = ctx.text.rfind("!`", line_start, index)  # `!`cmd`` in SKILL.md: Claude Code runs it as the skill loads
    vendor = _host_is_vendor(command, ctx) and not (ctx.markdown and bang >= 0 and "`" not in ctx.text[bang + 2:index])
    lured = ctx.prose and ctx.lured(index)
    if not lured and _labelled_dangerous(ctx, index):
        add(rule, WARNING, index, f"Quotes a download-and-run as a dangerous example (its line says so): "
            f"`{command[:80]}`.", "Keep it clearly marked as an example of what not to run.")
    elif vendor and not lured and ctx.markdown and known_vendor_url(command):
        return  # a well-known vendor's documented one-line install from its own host over HTTPS, shown to the reader
    elif vendor and not lured:
        add(rule, WARNING, index, f"Downloads and runs a vendor installer in one step: `{command[:80]}`.",
            "Prefer the vendor's package (brew, apt, pip, npm) or download, verify the checksum, then run.")
    elif vendor and _host_is_vendor(command) and all(u.lower().startswith("https://") for u in _URL.findall(command)):
        # a known publisher's own host over HTTPS, whatever the skill declares
        add(rule, WARNING, index, f"Downloads and runs a known vendor's installer in one step, under a "
            f"\"Prerequisites\"-style heading: `{command[:80]}`. The host is the vendor's own; a lure names another.",
            "Prefer the vendor's package (brew, apt, pip, npm) or link its install page.")
    else:
        why = " under a \"Prerequisites\"-style heading that presents it as required (the ClawHavoc lure)" \
            if lured else ""
        add(rule, ERROR, index, f"Downloads code{_url_note(command)} and runs it at once{why}: `{command[:80]}`. "
            "Whatever that host serves runs with the user's rights, unreviewed.",
            "Vendor the script under scripts/ so it is reviewed, or link the tool's official install page.")


# A line that labels its own command as the thing not to do (`"preinstall": "curl … | bash",  // DANGEROUS`).
# Only words that call the command itself bad: "# do not skip this" or "# never mind" is an instruction, not a label.
_DANGER_LABEL = re.compile(r"(?:#|//|--|<!--)\s*(?:DANGEROUS|MALICIOUS|VULNERABLE|BAD|INSECURE|UNSAFE|EXPLOIT|"
                           r"ATTACK)\b|\u274c|\U0001f6ab", re.I)


# `irm get.scoop.sh | iex`, `irm bun.sh/install.ps1|iex`: a downloader given a host and path with no scheme.
_BARE_HOST = re.compile(r"\b(?:irm|iwr|Invoke-RestMethod|Invoke-WebRequest|curl|wget)(?:\s+-{1,2}[A-Za-z][\w-]*)*\s+"
                        r"[\"']?((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}(?:/[^\s\"'|;)]*)?)(?=[\s\"'|;)]|\Z)",
                        re.I)


def _labelled_dangerous(ctx: Context, index: int) -> bool:
    """The command's own line carries a comment or mark calling it dangerous: an example of an attack being taught,
    which an agent reading it is told not to run. (A URL is blanked first, so `attacker.com` is no label.)"""
    return bool(_DANGER_LABEL.search(_URL.sub(" ", ctx.line_at(index))))


_ARCHIVE = re.compile(r"\.(?:zip|rar|7z)\b|\barchive\b", re.I)
_BINARY = re.compile(r"\.(?:exe|msi|scr|dmg|pkg|app|bat|cmd|vbs|jar|appimage)\b|\bbinary\b", re.I)
_RUN_VERB = re.compile(r"\b(?:run|launch|open|execute|double-click|start|install)\b", re.I)


def archive_exec(ctx: Context, add: Add) -> None:
    """"Download this password-protected zip and run the .exe": the password keeps scanners out of the archive."""
    if not ctx.prose or not ctx.may_hold(_ARCHIVE_NEEDLES):
        return
    for match in ctx.finditer(_ARCHIVE_RUN, ("password", "passcode", "pass:")):
        start, end = ctx.block(match.start(), 3)
        chunk = ctx.text[start:end]
        if _ARCHIVE.search(chunk) and _BINARY.search(chunk) and _RUN_VERB.search(chunk) and \
                (_URL.search(chunk) or "download" in chunk.lower()):
            add("security-download-exec", ERROR, match.start(),
                "Tells the user or agent to download a password-protected archive and run the program inside: "
                "the password keeps malware scanners out, and the program runs unreviewed.",
                "Remove the step; ship reviewable source under scripts/ instead.")
            return


# ---------------------------------------------------------------- decode then execute
DECODE_EXEC = re.compile(
    r"\bbase64\s+(?:-d|--decode|-D)\b[^\n]{0,300}\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k)?sh|python[0-9.]*|perl|node)\b"
    r"|\bxxd\s+-r\b[^\n]{0,300}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b"
    r"|(?<![.\w])(?:eval|Function)\s*\(\s*(?:atob|unescape|decodeURIComponent|String\.fromCharCode|"
    r"Buffer\.from)\s*\("
    r"|\bnew\s+Function\s*\(\s*(?:atob|Buffer\.from|unescape|String\.fromCharCode)\s*\("
    r"|-(?:EncodedCommand|enc)\s+[A-Za-z0-9+/]{24,}={0,2}"
    r"|\[(?:System\.)?Convert\]::FromBase64String[^\n]{0,300}(?:iex|Invoke-Expression)"
    r"|(?:iex|Invoke-Expression)[^\n]{0,300}FromBase64String",
    re.I)
_DECODE_EXEC_WORDS = ("base64", "xxd", "atob", "buffer.from", "unescape", "decodeuricomponent", "fromcharcode", "-enc",
                      "-encodedcommand", "frombase64string")
# Every DECODE_EXEC match holds one of these (lowered): a file without any is not searched (`Context.may_hold`).
_DECODE_EXEC_NEEDLES = gates.Bytes(b"base64", b"xxd", b"atob", b"unescape", b"decodeuricomponent", b"fromcharcode",
                                   b"buffer.from", b"-enc")  # (`FromBase64Stringiex` is one word: bytes, not words)


_RUN_WORDS = _words("exec", "eval", "compile", "__import__", "import_module", "getattr", "shell", "system", "popen")
_JS_RUNNERS = _words("eval", "function", "runinnewcontext", "runinthiscontext", "runincontext")
_JS_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx")
_JS_FETCH = re.compile(r"\bfetch\(|\bhttps?\.get\(|\baxios\b|\brequest\(|XMLHttpRequest|\bgot\(", re.I)
_JS_EVAL = re.compile(r"(?<![.\w$])eval\s*\(|\bnew\s+Function\s*\(|(?<![.\w$])Function\s*\(\s*\w+\s*\)\s*\(|"
                      r"\bvm\.runIn\w*Context\s*\(|\.then\(\s*eval\b")


# A JavaScript run of text: eval(…), new Function(…), Function(…)(…), vm.runIn…Context(…), vm.Script(…).
_JS_RUN_CALL = re.compile(r"(?<![.\w$])eval\s*\(|\bnew\s+Function\s*\(|(?<![.\w$])Function\s*\(|"
                          r"\bvm\.runIn\w*Context\s*\(|\bnew\s+vm\.Script\s*\(")
# What turns hidden text into code: base64/hex decoders and character-code builders.
_JS_DECODE = re.compile(r"\batob\s*\(|Buffer\.from\s*\([^;\n]{0,300}?[\"'`](?:base64|base64url|hex)[\"'`]|"
                        r"\bunescape\s*\(|\bdecodeURIComponent\s*\(|String\.fromCharCode\s*\(|"
                        r"\.toString\s*\(\s*[\"'`](?:base64|hex)[\"'`]", re.I)
_JS_ASSIGN = re.compile(r"(?:\b(?:const|let|var)\s+|^|[;{}(,>]\s*)([A-Za-z_$][\w$]{0,60})\s*\+?=(?![=>])\s*([^;\n]{1,500})",
                        re.M)
MAX_JS_SOURCE = 512 * 1024  # as scan_python.MAX_SOURCE: beyond it the flow is not followed


def _outside_strings(text: str, start: int, end: int):
    """(index, character) of each character of text[start:end] outside string literals ('...', "...", `...`,
    backslash escapes honoured): the brackets and separators that shape the code."""
    quote, index = "", start
    while index < end:
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'`":
            quote = char
        else:
            yield index, char
        index += 1


def _call_argument(text: str, open_at: int, limit: int = 4000) -> str:
    """The text between the `(` at `open_at` and its matching `)` (strings skipped), at most `limit` characters:
    what the call receives, so a decode elsewhere in the file is never taken for the call's argument."""
    depth, end = 0, min(len(text), open_at + limit)
    for index, char in _outside_strings(text, open_at, end):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return text[open_at + 1:index]
    return text[open_at + 1:end]


def _statement_end(text: str, start: int, limit: int = 8000) -> int:
    """Where the statement holding `start` ends: the first `;` or line end outside brackets and strings (a line
    that goes on with `.then(…)` continues it). A callback passed to a download call is inside its brackets, so
    `https.get(url, res => { … eval(body) … })` is one statement."""
    depth, end = 0, min(len(text), start + limit)
    for index, char in _outside_strings(text, start, end):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                return index
        elif depth == 0 and (char == ";" or (char == "\n" and not text[index:index + 200].lstrip().startswith("."))):
            return index
    return end


def js_flows(text: str, source: re.Pattern) -> list[tuple[int, str]]:
    """(index, call) of every eval-like call connected to `source`: the source written in the argument itself, the
    call inside the statement the source starts (its callback or `.then` chain), or a name the argument uses that
    was assigned from the source (followed through plain
    assignments, as scan_python does with `ast`). A source and a run that share a file but not a value are no flow:
    a WebSocket server that hashes with `digest('base64')` and never calls eval is not decode-then-run."""
    if len(text) > MAX_JS_SOURCE:
        return []
    calls = list(_JS_RUN_CALL.finditer(text))
    if not calls:
        return []
    tainted: set[str] = set()
    assignments = [(m.group(1), m.group(2)) for m in _JS_ASSIGN.finditer(text)]
    for _ in range(3):  # a few passes: `const a = atob(x); const b = a.trim();` taints b too
        for name, value in assignments:
            if name not in tainted and (source.search(value) or _uses(value, tainted)):
                tainted.add(name)
    spans = [(m.start(), _statement_end(text, m.start())) for m in source.finditer(text)]
    found = []
    for call in calls:
        argument = _call_argument(text, call.end() - 1)
        if source.search(argument) or _uses(argument, tainted) or \
                any(start < call.start() < end for start, end in spans):
            found.append((call.start(), call.group().strip()))
    return found


def _uses(code: str, names: set[str]) -> bool:
    return bool(names) and any(re.search(r"(?<![\w$.])" + re.escape(name) + r"(?![\w$])", code) for name in names)


def decode_exec(ctx: Context, add: Add) -> None:
    js = ctx.code and ctx.file.endswith(_JS_SUFFIXES) and ctx.has(_JS_RUNNERS)
    if js and not (ctx.may_hold(_DECODE_EXEC_NEEDLES) and DECODE_EXEC.search(ctx.text)):
        for index, call in js_flows(ctx.text, _JS_FETCH)[:1]:
            add("security-download-exec", ERROR, index,
                f"The script downloads code and runs it with `{call[:30]}`: whatever the server sends runs with "
                "the user's rights.", "Ship the code under scripts/ so it is reviewed.")
    if not ctx.may_hold(_DECODE_EXEC_NEEDLES) and not (ctx.python and (ctx.gates_off or ctx.has(_RUN_WORDS))):
        return
    reported: set[int] = set()
    for match in ctx.finditer(DECODE_EXEC, _DECODE_EXEC_WORDS):
        reported.add(ctx.text.count("\n", 0, match.start()))
        add("security-obfuscated-exec", ERROR, match.start(),
            f"Decodes hidden text and runs it: `{match.group().strip()[:80]}`. Reviewers see only the encoding.",
            "Ship the code in plain text under scripts/.")
    if ctx.python:
        facts = ctx.facts
        if facts is None:
            return
        if facts.decode_exec or facts.computed_import:
            from skillyard.format.scan.behaviour_compiled import compiles_in_view, plugin_import
        for line, what in facts.decode_exec + facts.computed_import:
            if plugin_import(what) or what.endswith("of compiled text") and compiles_in_view(ctx.text, line):
                continue
            add("security-obfuscated-exec", ERROR, _index_of_line(ctx.text, line),
                f"The script runs code it hides: {what}. Reviewers cannot see what runs.",
                "Write the code out in plain text; import modules by their literal name.")
        for line, what in facts.fetch_exec:
            add("security-download-exec", ERROR, _index_of_line(ctx.text, line),
                f"The script runs {what}: whatever the server sends runs with the user's rights.",
                "Ship the code under scripts/ so it is reviewed.")
    elif js:
        for index, call in js_flows(ctx.text, _JS_DECODE):
            if ctx.text.count("\n", 0, index) not in reported:
                add("security-obfuscated-exec", ERROR, index,
                    f"The script decodes text and runs the result with `{call[:30]}`: reviewers see only the "
                    "encoding.", "Ship the code in plain text.")
                break


def _index_of_line(text: str, line: int) -> int:
    """Where 1-based `line` starts, or -1 when the text has no such line: the scanner reports a position it cannot
    place with no line (never the last one, which would name a line that does not hold the match)."""
    if line < 1:
        return -1
    index = 0
    for _ in range(line - 1):
        index = text.find("\n", index) + 1
        if index == 0:
            return -1
    return index
