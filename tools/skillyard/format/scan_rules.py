"""Behaviour rules: what a skill's instructions or scripts would make an agent do, not which words they use.

Each rule looks for an action (download and run, decode and run, read a secret and send it, write a startup file,
switch a safety control off, override the agent's instructions) and says where and why. A word alone is never
blocking: a credential path needs a read or copy next to it, a network call needs a secret flowing into it, a
vendor installer piped to a shell is a warning unless a "Prerequisites"-style lure or an unknown host goes with it.

Speed: a file is lowered once and each rule family runs only when one of its literal keywords is in it (`in` is
a C-speed substring search), so the common skill — prose and ordinary code — costs a handful of `in` tests.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from skillyard.format import scan_python
from skillyard.format.findings import Severity

ERROR, WARNING = Severity.ERROR, Severity.WARNING
CODE_SUFFIXES = frozenset({".py", ".pyw", ".sh", ".bash", ".zsh", ".fish", ".js", ".mjs", ".cjs", ".ts", ".tsx",
                           ".jsx", ".ps1", ".psm1", ".bat", ".cmd", ".rb", ".pl", ".php", ".lua", ".command"})
# Hosts of well-known vendor installers: piping them to a shell is how their own docs install them.
VENDOR_HOSTS = ("sh.rustup.rs", "rustup.rs", "astral.sh", "raw.githubusercontent.com/homebrew/", "brew.sh",
                "raw.githubusercontent.com/nvm-sh/", "get.docker.com", "bun.sh", "deno.land", "deno.com",
                "install.python-poetry.org", "get.pnpm.io", "get.sdkman.io", "ollama.com", "claude.ai/install",
                "pyenv.run", "mise.run", "get.volta.sh", "tailscale.com/install", "fly.io/install", "starship.rs",
                "raw.githubusercontent.com/helm/", "get.helm.sh", "foundry.paradigm.xyz", "sh.pulumi.com",
                "get.pulumi.com", "cli.doppler.com", "dot.net/v1/dotnet-install", "get.k3s.io", "opencode.ai/install",
                "cursor.com/install", "install.determinate.systems", "nixos.org/nix/install", "get.rvm.io",
                "raw.githubusercontent.com/ohmyzsh/", "sh.uv.dev", "supabase.com", "vercel.com", "railway.app",
                "railway.com", "cli.expo.dev", "setup.ts.net", "get.jenkins.io", "downloads.sentry-cdn.com",
                "cli.sentry.dev", "releases.hashicorp.com", "github.com/cli/cli", "npmjs.org", "pypi.org",
                "download.pytorch.org", "get.rio.app", "install.pulumi.com", "volta.sh", "getcomposer.org",
                "sdk.cloud.google.com", "aka.ms/install-azd", "aka.ms/installazurecli", "awscli.amazonaws.com",
                "raw.githubusercontent.com/anthropics/", "raw.githubusercontent.com/getsentry/",
                "raw.githubusercontent.com/expo/", "raw.githubusercontent.com/hashicorp/", "hashicorp.com")
PACKAGE_INDEXES = ("pypi.org", "files.pythonhosted.org", "download.pytorch.org", "registry.npmjs.org",
                   "registry.yarnpkg.com", "test.pypi.org", "pypi.python.org", "npm.pkg.github.com")
# Well-known npm packages agents run with `npx -y`: a near miss of one of these is a typosquat.
NPX_PACKAGES = ("@modelcontextprotocol/server-filesystem", "@modelcontextprotocol/server-github",
                "@modelcontextprotocol/server-memory", "@modelcontextprotocol/server-puppeteer",
                "@modelcontextprotocol/server-everything", "@modelcontextprotocol/server-sequential-thinking",
                "@modelcontextprotocol/create-server", "@modelcontextprotocol/inspector", "@playwright/mcp",
                "@anthropic-ai/claude-code", "@openai/codex", "playwright", "eslint", "prettier", "typescript",
                "create-react-app", "create-next-app", "create-vite", "eslint-config-airbnb", "skills", "vitest",
                "tsx", "serve", "http-server", "wrangler", "vercel", "netlify-cli", "firebase-tools",
                "@upstash/context7-mcp", "mcp-remote", "@sentry/wizard", "expo", "create-expo-app", "shadcn")

_NEGATION = re.compile(r"\b(?:never|not|don't|dont|do not|avoid|without|instead of|rather than|refuse|warn|"
                       r"detect|flag|block|reject|watch for|look for|dangerous|malicious)\b", re.I)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]{0,300}\n.*?(?:^ {0,3}\1[`~]*[ \t]*$|\Z)", re.M | re.S)
_HTML_BLOCK = re.compile(r"^ {0,3}<(pre|script|style|textarea)\b.*?(?:</\1\s*>|\Z)", re.M | re.S | re.I)
_HEADING = re.compile(r"^#{1,6}[ \t]+([^\n]{0,300})", re.M)
_LURE = re.compile(r"prereq|requirement|required|before (?:you|using|use|first)|must (?:be )?install", re.I)
_URL = re.compile(r"(?:https?|ftp)://[^\s'\"`)>\]]+", re.I)

Add = Callable[[str, Severity, int, object, str], None]
WINDOW = 500  # characters of context any one check reads around a match
MAX_MATCHES = 100  # candidate matches judged per rule and file (findings are capped lower, in security.scan_text)
_TOKEN_TABLE = bytes(c + 32 if 65 <= c <= 90 else c if (48 <= c <= 57 or 97 <= c <= 122 or c == 95) else 32
                     for c in range(256))
_ASCII_LOWER = {c: c + 32 for c in range(65, 91)}


def _words(*words: str) -> frozenset[bytes]:
    return frozenset(w.encode() for w in words)


@functools.lru_cache(maxsize=512)
def _token_of(needle: str) -> bytes:
    """The longest word in a search needle (`.ssh` -> `ssh`): if the file lacks that word, the needle cannot occur
    either. Each needle's words must be whole words where it occurs (`](http` would miss `](https`); a needle
    without a word (`<|`) is always looked for."""
    return max(needle.encode().translate(_TOKEN_TABLE).split(), key=len, default=b"")


# Word sets the rules below test (built once, not per file).
_W0 = _words("chmod", "process")
_W1 = _words("password", "passcode")
_W2 = _words("function", "eval")
_W3 = _words("buffer")
_W4 = _words("base64")
_W5 = _words("dotenv", "load_dotenv", "dotenvx")
_W6 = _words("http", "https")
_W7 = _words("bash", "allow")
_W8 = _words("apply")
_W9 = _words("longer", "safety", "security")
_W10 = _words("now", "new")
_W11 = _words("prompt")
_W12 = _words("reveal", "print", "output")
_W13 = _words("npx")
_W14 = _words("y", "yes")
_W15 = _words("index", "registry", "trusted", "pip_index_url", "pip_extra_index_url")


class Context:
    """One file being scanned: its text, lowered copy (for keyword gates), kind and lazily computed layout."""

    def __init__(self, text: str, file: str, markup: str | None, raw: bytes | None = None):
        self.text = text
        if raw is None:
            raw = text.encode("utf-8", "surrogatepass")
        self.raw = raw
        # The file's words, lowered (ASCII letters, digits and `_`; everything else separates): one C-speed
        # `bytes.translate` and `split`. Every rule first asks this set whether its keywords occur at all.
        self.words = frozenset(raw.translate(_TOKEN_TABLE).split())
        self._low: str | None = None
        self._without_urls: str | None = None
        self._gates: dict[str, bool] = {}
        suffix = file[file.rfind("."):].lower() if "." in file.rsplit("/", 1)[-1] else ""
        self.code = suffix in CODE_SUFFIXES
        self.python = suffix in (".py", ".pyw")
        self.file = file.lower()
        self.prose = not self.code  # Markdown, plain text and config: instructions an agent reads
        self.markdown = markup == "markdown"
        self._fences: list[tuple[int, int]] | None = None
        self._facts: scan_python.Facts | None | bool = False
        self._headings: list[tuple[int, str]] | None = None

    @property
    def fences(self) -> list[tuple[int, int]]:
        if self._fences is None:
            self._fences = [(m.start(), m.end()) for m in _FENCE.finditer(self.text)] \
                if self.markdown and ("```" in self.text or "~~~" in self.text) else []
            if self._fences and "<" in self.text:  # inside `<pre>` … `</pre>` (an HTML block) a fence is text
                blocks = [(m.start(), m.end()) for m in _HTML_BLOCK.finditer(self.text)]
                self._fences = [f for f in self._fences if not any(a <= f[0] < b for a, b in blocks)]
        return self._fences

    def has(self, words: frozenset[bytes]) -> bool:
        """Whether any of `words` (lowercase, whole words) occurs in the file."""
        return not self.words.isdisjoint(words)

    @property
    def without_urls(self) -> str:
        """The text with every URL blanked (computed once): where a tool's name counts as named."""
        if self._without_urls is None:
            self._without_urls = _URL.sub(" ", self.text)
        return self._without_urls

    @property
    def low(self) -> str:
        """The text lowered, position for position (a few characters such as İ lower to two; then only ASCII is)."""
        if self._low is None:
            low = self.text.lower()
            self._low = low if len(low) == len(self.text) else self.text.translate(_ASCII_LOWER)
        return self._low

    def gate(self, name: str) -> bool:
        """Whether one of the anchored gate patterns (`GATES`, each starting with one literal character, so the
        regex engine skips between candidates at C speed) matches: computed once per file."""
        found = self._gates.get(name)
        if found is None:
            found = self._gates[name] = GATES[name].search(self.text) is not None
        return found

    def lines_with(self, words: tuple[str, ...]) -> list[tuple[int, int]]:
        """(start, end) of each line holding one of the lowercase `words`, found with `str.find` (C speed); only
        the words whose own word occurs in the file are looked for."""
        words = tuple(w for w in words if not _token_of(w) or _token_of(w) in self.words)
        if not words:
            return []
        low = self.low
        spans: set[tuple[int, int]] = set()
        for word in words:
            at = low.find(word)
            while at >= 0:
                start = low.rfind("\n", 0, at) + 1
                end = low.find("\n", at)
                end = len(low) if end < 0 else end
                spans.add((start, end))
                at = low.find(word, end)
        return sorted(spans)

    def finditer(self, pattern: re.Pattern, words: tuple[str, ...]):
        """`pattern`'s matches, run only over the lines that hold one of `words` (every match of a line-local
        pattern holds one): the regex engine never walks the rest of the file. At most `MAX_MATCHES` are
        looked at, since judging each reads its line: a hostile file of one long line repeating a keyword
        would otherwise cost its length times the number of matches."""
        seen = 0
        for start, end in self.lines_with(words):
            for match in pattern.finditer(self.text, start, end):
                yield match
                seen += 1
                if seen >= MAX_MATCHES:
                    return

    @property
    def facts(self) -> scan_python.Facts | None:
        """The script's `ast` facts (Python only), parsed once for every rule."""
        if self._facts is False:
            self._facts = scan_python.analyse(self.text) if self.python else None
        return self._facts  # type: ignore[return-value]

    def in_fence(self, index: int) -> bool:
        return any(start <= index < end for start, end in self.fences)

    def _line_start(self, index: int) -> int:
        """Where `index`'s line starts, looking back at most `WINDOW` characters (lines longer than that are
        judged on their last `WINDOW` characters, so no check costs more than that)."""
        return max(self.text.rfind("\n", max(0, index - WINDOW), index) + 1, index - WINDOW)

    def in_code_span(self, index: int) -> bool:
        start = self._line_start(index)
        return self.text.count("`", start, index) % 2 == 1

    def quoted(self, index: int) -> bool:
        """Inside quotation marks on its line, in prose: a skill quoting an attack, not making one."""
        if self.code or self.in_fence(index):
            return False
        before = self.text[self._line_start(index):index]
        return (before.count('"') % 2 == 1) or before.count("\u201c") > before.count("\u201d") or \
            (before.count("'") % 2 == 1 and before.rstrip().endswith("'"))

    def as_code(self, index: int) -> bool:
        """Whether the text at `index` is code (a script, a fence, a code span) rather than prose."""
        return self.code or self.in_fence(index) or self.in_code_span(index)

    def heading(self, index: int) -> str:
        if self._headings is None:
            self._headings = [(m.start(), m.group(1)) for m in _HEADING.finditer(self.text)] if "#" in self.text else []
        title = ""
        for at, text in self._headings:
            if at > index:
                break
            title = text
        return title

    def block(self, index: int, lines: int = 6) -> tuple[int, int]:
        """The instruction around `index`: its paragraph in prose (up to `lines` lines each way), the file in code."""
        if self.code:
            return 0, len(self.text)
        start = end = index
        for _ in range(lines):
            prev = self.text.rfind("\n", 0, start - 1) if start > 0 else -1
            if prev < 0:
                start = 0
                break
            if not self.text[prev + 1:start].strip() or self.text.startswith("#", prev + 1):
                break
            start = prev + 1
        start = self.text.rfind("\n", 0, start) + 1 if start else 0
        for _ in range(lines):
            nxt = self.text.find("\n", end + 1)
            if nxt < 0:
                end = len(self.text)
                break
            if not self.text[end:nxt].strip() and end != index:
                break
            end = nxt
        return start, end

    def line_at(self, index: int) -> str:
        end = self.text.find("\n", index, index + WINDOW)
        return self.text[self._line_start(index):end if end >= 0 else min(len(self.text), index + WINDOW)]

    def sentence(self, index: int) -> str:
        start = max(self._line_start(index), self.text.rfind(". ", max(0, index - WINDOW), index) + 1)
        end = self.text.find("\n", index, index + WINDOW)
        return self.text[start:end if end >= 0 else min(len(self.text), index + WINDOW)]

    def negated(self, index: int) -> bool:
        """A prose sentence that forbids or warns about the thing ("never read .env files"); code is never negated."""
        if self.code or self.in_fence(index):
            return False
        start = max(self._line_start(index), self.text.rfind(". ", max(0, index - WINDOW), index))
        return bool(_NEGATION.search(self.text, start, index))

    def lured(self, index: int) -> bool:
        """Under a "Prerequisites"-style heading, or in a paragraph that insists the step is required."""
        if _LURE.search(self.heading(index)):
            return True
        start, end = self.block(index, 3)
        return bool(re.search(r"\b(?:required|must install|will not work|won't work|cannot work|needs? the helper)\b",
                              self.text[start:end], re.I))


_RISKY_HOST = re.compile(r"^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:]+\])(?::\d+)?\Z|(?:^|\.)(?:bit\.ly|tinyurl\.com|t\.co|"
                         r"is\.gd|pastebin\.com|paste\.ee|hastebin\.com|ghostbin\.\w+|transfer\.sh|ngrok\.io|"
                         r"ngrok-free\.app|gist\.githubusercontent\.com|discord(?:app)?\.com|cdn\.discordapp\.com|"
                         r"trycloudflare\.com|glitch\.me|workers\.dev)\Z", re.I)


def _host_is_vendor(command: str, ctx: Context | None = None) -> bool:
    """A well-known vendor installer, or (given the file) a host named after a tool the text itself talks about
    (`get.nextflow.io` in a Nextflow skill): installing the product the skill is about from its own site. Bare IP
    addresses, URL shorteners, paste sites and tunnels never count."""
    urls = _URL.findall(command)
    if not urls:
        return False
    for url in urls:
        low = url.lower()
        if any(host in low for host in VENDOR_HOSTS):
            continue
        host = low.split("://", 1)[-1].split("/", 1)[0].split("@")[-1]
        if _RISKY_HOST.search(host) or ctx is None:
            return False
        labels = [label for label in host.split(":")[0].split(".") if label]
        name = labels[-2] if len(labels) >= 2 else ""
        if len(name) < 4 or name in ("example", "githubusercontent", "github", "gitlab", "amazonaws", "cloudfront",
                                     "googleapis", "azureedge", "vercel", "netlify", "herokuapp"):
            return False
        if not re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", ctx.without_urls, re.I):
            return False
    return True


def _url_note(command: str) -> str:
    url = _URL.search(command)
    return f" from `{url.group()[:80]}`" if url else ""


# ---------------------------------------------------------------- download and execute
_DOWNLOADERS = _words("curl", "wget", "iex", "invoke", "irm", "iwr", "urlopen", "fetch", "webclient", "downloadstring")
_CODE_DOWNLOADERS = _words("requests", "urlretrieve", "downloadfile", "httpx", "https", "http")
_DOWNLOAD_EXEC_WORDS = ("curl", "wget", "iex", "invoke-", "urlopen", "fetch(", "webclient", "requests.", ".then(")
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
    r"|(?<![.\w])(?:exec|eval)\s*\(\s*(?:urllib\.request\.)?urlopen\([^\n]{0,300}"
    r"|(?<![.\w])(?:exec|eval)\s*\(\s*requests\.get\([^\n]{0,300}"
    r"|\.then\(\s*(?:eval|Function)\s*\)"
    r"|(?<![.\w])(?:eval|Function)\s*\(\s*await\s*\(?\s*(?:await\s*)?fetch\([^\n]{0,300}",
    re.I | re.M)
# A download saved to a file, made executable and started, a few lines apart (or in one script).
_SAVE = re.compile(r"\b(?:curl\b[^\n]{0,300}\s(?:-o|--output|-O|-\w*o)\s*\S+|wget\b[^\n]{0,300}\s(?:-O|--output-document)\s*\S+|"
                   r"wget\s+(?:-q\s+)?https?://\S+|urlretrieve\(|Invoke-WebRequest\b[^\n]{0,300}-OutFile|"
                   r"\.DownloadFile\(|requests\.get\([^\n]{0,300}|open\([^\n]{0,300}[\"']wb[\"'])", re.I)
_MAKE_EXEC = re.compile(r"\bchmod\s+(?:[ugoa]*\+[rwx]*x|[0-7]*[157][0-7]{0,2}\b)|[\"']chmod[\"']|"
                        r"\bStart-Process\b|\bos\.chmod\(|\bsubprocess\.Popen\(\[[\"']/tmp", re.I)
_ARCHIVE_RUN = re.compile(r"password|passcode|pass:", re.I)


def download_exec(ctx: Context, add: Add) -> None:
    if not ctx.has(_DOWNLOADERS) and not (ctx.code and ctx.has(_CODE_DOWNLOADERS)):
        return
    for match in ctx.finditer(DOWNLOAD_EXEC, _DOWNLOAD_EXEC_WORDS):
        download_finding(ctx, add, "security-download-exec", match.start(), match.group().strip())
    if ctx.has(_W0):
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
    if not _URL.search(command):
        command = ctx.line_at(index).strip()
    if ctx.prose and not _URL.search(command) and not ctx.in_fence(index):
        if not (ctx.negated(index) or _discussed(ctx, index)):
            add(rule, WARNING, index, f"Describes downloading and running code in one step: `{command[:80]}`.",
                "Download to a file, verify its checksum, then run it; or vendor the script under scripts/.")
        return
    vendor = _host_is_vendor(command, ctx)
    lured = ctx.prose and ctx.lured(index)
    if vendor and not lured:
        add(rule, WARNING, index, f"Downloads and runs a vendor installer in one step: `{command[:80]}`.",
            "Prefer the vendor's package (brew, apt, pip, npm) or download, verify the checksum, then run.")
    else:
        why = " under a \"Prerequisites\"-style heading that presents it as required (the ClawHavoc lure)" \
            if lured else ""
        add(rule, ERROR, index, f"Downloads code{_url_note(command)} and runs it at once{why}: `{command[:80]}`. "
            "Whatever that host serves runs with the user's rights, unreviewed.",
            "Vendor the script under scripts/ so it is reviewed, or link the tool's official install page.")


_ARCHIVE = re.compile(r"\.(?:zip|rar|7z)\b|\barchive\b", re.I)
_BINARY = re.compile(r"\.(?:exe|msi|scr|dmg|pkg|app|bat|cmd|vbs|jar|appimage)\b|\bbinary\b", re.I)
_RUN_VERB = re.compile(r"\b(?:run|launch|open|execute|double-click|start|install)\b", re.I)


def archive_exec(ctx: Context, add: Add) -> None:
    """"Download this password-protected zip and run the .exe": the password keeps scanners out of the archive."""
    if not ctx.prose or not ctx.has(_W1):
        return
    for match in ctx.finditer(_ARCHIVE_RUN, ("password", "passcode")):
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
_DECODE_WORDS = _words("base64", "xxd", "atob", "buffer", "unescape", "decodeuricomponent", "fromcharcode", "enc",
                       "encodedcommand", "frombase64string")


_RUN_WORDS = _words("exec", "eval", "compile", "__import__", "import_module", "getattr", "shell", "system", "popen")
_JS_RUNNERS = _words("eval", "function", "runinnewcontext", "runinthiscontext", "runincontext")
_JS_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx")
_JS_FETCH = re.compile(r"\bfetch\(|\bhttps?\.get\(|\baxios\b|\brequest\(|XMLHttpRequest|\bgot\(", re.I)
_JS_EVAL = re.compile(r"(?<![.\w$])eval\s*\(|\bnew\s+Function\s*\(|(?<![.\w$])Function\s*\(\s*\w+\s*\)\s*\(|"
                      r"\bvm\.runIn\w*Context\s*\(|\.then\(\s*eval\b")


def decode_exec(ctx: Context, add: Add) -> None:
    if ctx.code and ctx.file.endswith(_JS_SUFFIXES) and ctx.has(_JS_RUNNERS):
        run = _JS_EVAL.search(ctx.text)
        if run and _JS_FETCH.search(ctx.text) and not DECODE_EXEC.search(ctx.text):
            add("security-download-exec", ERROR, run.start(),
                f"The script downloads code and runs it with `{run.group().strip()[:30]}`: whatever the server "
                "sends runs with the user's rights.", "Ship the code under scripts/ so it is reviewed.")
    if not ctx.has(_DECODE_WORDS) and not (ctx.python and ctx.has(_RUN_WORDS)):
        return
    for match in ctx.finditer(DECODE_EXEC, _DECODE_EXEC_WORDS):
        add("security-obfuscated-exec", ERROR, match.start(),
            f"Decodes hidden text and runs it: `{match.group().strip()[:80]}`. Reviewers see only the encoding.",
            "Ship the code in plain text under scripts/.")
    if ctx.python:
        facts = ctx.facts
        if facts is None:
            return
        for line, what in facts.decode_exec + facts.computed_import:
            add("security-obfuscated-exec", ERROR, _index_of_line(ctx.text, line),
                f"The script runs code it hides: {what}. Reviewers cannot see what runs.",
                "Write the code out in plain text; import modules by their literal name.")
        for line, what in facts.fetch_exec:
            add("security-download-exec", ERROR, _index_of_line(ctx.text, line),
                f"The script runs {what}: whatever the server sends runs with the user's rights.",
                "Ship the code under scripts/ so it is reviewed.")
    elif ctx.code and ctx.has(_W2) and ctx.has(_W3) and ctx.has(_W4):
        at = max(ctx.text.find("new Function("), ctx.text.find("eval("))
        add("security-obfuscated-exec", ERROR, at,
            "The script decodes base64 and runs the result with eval/new Function: reviewers see only the encoding.",
            "Ship the code in plain text.")


def _index_of_line(text: str, line: int) -> int:
    index = 0
    for _ in range(line - 1):
        index = text.find("\n", index) + 1
        if index == 0:
            return len(text)
    return index


# ---------------------------------------------------------------- secrets flowing to the network
SECRET_SOURCE = re.compile(
    r"\.ssh\b(?!/(?:[\w.-]+\.pub|known_hosts|config)\b)|\.(?:aws|kube|gnupg|netrc|npmrc|pypirc|git-credentials|docker[/\\]config\.json|"
    r"config[/\\](?:solana|gcloud|gh)|ethereum|bitcoin|electrum)\b"
    r"|\bid_(?:rsa|ed25519|ecdsa|dsa)\b(?!\.pub)|/etc/shadow\b|\bLogin Data\b|\bwallet\.dat\b|\bkeychain\b|"
    r"\bkeystore\b|\.aws/credentials|(?<![\w/.-])\.env(?:\.local|\.production)?\b(?![\w.-])",
    re.I)
ENV_DUMP = re.compile(r"dict\(os\.environ\)|os\.environ\.copy\(\)|os\.environ\.items\(\)|json\.dumps\(\s*os\.environ"
                      r"|JSON\.stringify\(\s*process\.env\s*\)|\.\.\.process\.env\b|body:\s*process\.env\b"
                      r"|\bprintenv\b[^\n|]{0,300}\||(?:^|[;&|(]\s*|`)env\s*\||\bGet-ChildItem\s+env:[^\n]{0,300}\|"
                      r"|\bset\s*\|\s*curl", re.I | re.M)
NETWORK_SINK = re.compile(
    r"requests\.(?:post|put|patch)\(|httpx\.(?:post|put)\(|urlopen\([^\n]{0,300}data\s*=|Request\([^\n]{0,300}data\s*=|"
    r"urlopen\(\s*req|\.sendall\(|\.send\(|create_connection\(|socket\.socket\(|"
    r"fetch\([^\n]{0,300}(?:method|body)|axios\.post\(|"
    r"\bcurl\b[^\n]{0,300}(?:\s-d\b|\s--data|\s-F\b|\s--form\b|\s-T\b|\s--upload-file\b|-X\s*POST)|"
    r"\bwget\b[^\n]{0,300}--post|\b(?:nc|ncat|netcat)\s+(?:-\w+\s+)*\S+\s+\d{2,5}\b|"
    r"Invoke-(?:WebRequest|RestMethod)[^\n]{0,300}-Method\s+Post|\bnslookup\b|\bdig\s+\S|gethostbyname|"
    r"https?://[^\s'\"`)]*(?:webhook\.site|pastebin|paste\.|transfer\.sh|hooks\.slack\.com|api/webhooks|ngrok|"
    r"requestbin|pipedream|interact\.sh|oast\.)|"
    r"\bscp\s+\S+\s+\S+@|\bftp://|"
    r"\b(?:send|post|upload|forward|transmit|exfiltrate|submit)\w*\b[^\n]{0,80}(?:https?://|webhook|endpoint|server)",
    re.I)
_SOURCE_WORDS = (".ssh", ".aws", ".kube", ".gnupg", ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".docker",
                 "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "/etc/shadow", "login data", "wallet", "keychain",
                 "keystore", ".config/", ".ethereum", ".bitcoin", ".electrum", "environ", "process.env",
                 "printenv", "env |", "env|", "env:", "set |", ".env")
_SECRET_WORDS = (".env", ".ssh", ".aws", ".kube", ".gnupg", ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".docker",
                 "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "/etc/shadow", "login data", "wallet.dat", "keychain",
                 "keystore", ".config", ".ethereum", ".bitcoin", ".electrum")
_ENV_WORDS = ("environ", "process.env", "printenv", "env |", "env|", "env:", "set |", "set|")
# Every secret location and start-up file starts with `.` or holds `_`: two regexes with a literal first character
# find them at C speed (the regex engine skips to each `.` and `_`), far cheaper than one `in` per name.
_DOT_GATE = re.compile(r"\.(?:ssh|aws|kube|gnupg|netrc|npmrc|pypirc|git-credentials|docker|config|ethereum|bitcoin|"
                       r"electrum|env|bashrc|zshrc|zprofile|zshenv|profile|bash_profile|bash_login)\b")
_UNDERSCORE_GATE = re.compile(r"_(?:rsa|ed25519|ecdsa|dsa|keys)\b")
GATES = {
    "dot": _DOT_GATE, "underscore": _UNDERSCORE_GATE,
    # flags: --dangerously-…, --user, --index-url, -y/--yes, -enc/-EncodedCommand, -Disable…/-Exclusion…
    "dash": re.compile(r"-(?:-(?:dangerously|user\b|(?:extra-)?index-url|registry|trusted-host|master-disable|yes\b|"
                       r"yolo\b)|[Ee]nc|[Ee]ncodedCommand|Disable|Exclusion|y\b)"),
    # calls: fetch(, exec(, eval(, Function(, atob(, urlopen(, Bash(*)
    "paren": re.compile(r"\((?:\*\)|(?<=fetch\()|(?<=exec\()|(?<=eval\()|(?<=Function\()|(?<=atob\()|"
                        r"(?<=urlopen\())"),
    "tag": re.compile(r"<(?:/?(?:system|assistant|skill|developer|system_prompt)>|\|)"),
    "bracket": re.compile(r"\[/?(?:SYSTEM|INST)\]"),
}
_SOURCE_TOKENS = _words("ssh", "aws", "kube", "gnupg", "netrc", "npmrc", "pypirc", "credentials", "docker", "id_rsa",
                        "id_ed25519", "id_ecdsa", "id_dsa", "shadow", "login", "wallet", "keychain", "keystore",
                        "solana", "gcloud", "ethereum", "bitcoin", "electrum", "environ", "printenv", "env")
_SPLIT_SOURCE_TOKENS = _words("ss", "rsa", "ed25519", "home", "expanduser", "id_")
_READ_VERB = re.compile(r"\b(?:cat|less|more|head|tail|read|reads|reading|open|load|copy|cp|scp|rsync|send|upload|"
                        r"post|print|dump|base64|tar|zip|exfiltrate|include|attach|paste|grep|type|Get-Content|"
                        r"curl|collect|gather|harvest|show|output|archive|back ?up|forward)\b|read_text|read_bytes|"
                        r"open\(|@", re.I)


def exfiltration(ctx: Context, add: Add) -> None:
    if not ctx.has(_SOURCE_TOKENS) and not (ctx.python and ctx.has(_SPLIT_SOURCE_TOKENS)):
        return
    sources: list[tuple[int, str]] = []
    dotenv = ctx.has(_W5)  # a library reads .env for the script's own use
    for match in ctx.finditer(SECRET_SOURCE, _SECRET_WORDS):
        if not (dotenv and match.group().startswith(".env")):
            sources.append((match.start(), match.group().strip(" /\\\"',")))
    for match in ctx.finditer(ENV_DUMP, _ENV_WORDS):
        sources.append((match.start(), "the whole environment (every variable, secrets included)"))
    if ctx.python:
        facts = ctx.facts
        if facts is not None:
            for line, value in facts.strings:
                found = SECRET_SOURCE.search(value)
                if found and not any(found.group().strip(" /\\\"',") in s for _, s in sources):
                    sources.append((_index_of_line(ctx.text, line), found.group().strip(" /\\\"',")))
            for line in facts.env_dump:
                sources.append((_index_of_line(ctx.text, line), "the whole environment"))
    if not sources:
        return
    sources.sort()
    reported_sink = False
    for index, what in sources[:200]:
        if ctx.prose and (ctx.negated(index) or ctx.quoted(index)):
            continue
        if ctx.prose and not ctx.in_fence(index) and not _READ_VERB.search(ctx.line_at(index)):
            continue  # prose that only names the file ("add .env to .gitignore") reads nothing
        start, end = ctx.block(index, 6)
        sink = NETWORK_SINK.search(ctx.text, start, end)
        if sink and not reported_sink:
            reported_sink = True
            add("security-exfiltration", ERROR, index,
                f"Reads `{what[:60]}` and sends data over the network (`{sink.group().strip()[:60]}`, line "
                f"{ctx.text.count(chr(10), 0, sink.start()) + 1} of this file): secrets leave the user's machine.",
                "Do not read secrets from the user's machine; ask for the one value the skill needs as an input.")
        elif not sink:
            line_start = ctx.text.rfind("\n", 0, index) + 1
            line_end = ctx.text.find("\n", index)
            line = ctx.text[line_start:line_end if line_end >= 0 else len(ctx.text)]
            if _READ_VERB.search(line) and not what.startswith("the whole environment"):
                add("security-credential-path", WARNING, index,
                    f"Reads a credential location (`{what[:60]}`).",
                    "Do not read secrets from the user's machine; ask for the value as an input instead.")


SECRET_IMAGE = re.compile(
    r"!?\[[^\]\n]{0,300}\]\(\s*<?https?://[^)\s]{0,500}(?:\$\{?[A-Z_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASS|CRED|SESSION)[A-Z_]*\}?|"
    r"\{\{?\s*(?:env|secrets?|[a-z_.]*(?:key|token|secret|password|conversation|history|chat|context|memory))[^}]*\}|"
    r"\$\(\s*(?:cat|printenv|env|echo))",
    re.I)


def secret_url(ctx: Context, add: Add) -> None:
    if not ctx.has(_W6) or b"](" not in ctx.raw or not (b"$" in ctx.raw or b"{" in ctx.raw):
        return
    for match in ctx.finditer(SECRET_IMAGE, ("$", "{")):
        add("security-exfiltration", ERROR, match.start(),
            f"A Markdown image or link whose address carries a secret or the conversation (`{match.group()[:80]}`): "
            "rendering it sends that value to the host, with no click needed.",
            "Remove the placeholder from the URL.")


# ---------------------------------------------------------------- persistence
_RC_FILES = r"(?:\.bashrc|\.bash_profile|\.zshrc|\.zprofile|\.zshenv|\.profile|\.bash_login|config\.fish|" \
            r"Microsoft\.PowerShell_profile\.ps1|\$PROFILE)\b"
_WRITE = r"(?:>>?|\btee\b|open\([^\n]{0,300}[\"'][aw]\+?[\"']|write|Add-Content|Set-Content|Out-File|\bcp\b|\bmv\b|\bln\b)"
PERSIST_ALWAYS = re.compile(
    r"\bauthorized_keys\b|\balias\s+sudo\s*=|\bLibrary/Launch(?:Agents|Daemons)\b|\.config/systemd/user\b|"
    r"\bsystemctl\s+--user\s+(?:enable|start)|\bCurrentVersion\\+Run(?:Once)?\b|\bStart Menu\\+Programs\\+Startup\b|"
    r"\bschtasks\b[^\n]{0,300}/create|\bcrontab[ \t]+-(?=\s|$)|\|[ \t]*crontab\b|@reboot\b",
    re.I | re.M)
_PERSIST_TOKENS = _words("authorized_keys", "alias", "launchagents", "launchdaemons", "systemd", "systemctl",
                         "currentversion", "startup", "schtasks", "crontab", "reboot", "bashrc", "bash_profile", "zshrc",
                         "zprofile", "zshenv", "profile", "bash_login", "fish")
_PERSIST_LINE_WORDS = ("authorized_keys", "alias", "--user", "launchagents", "launchdaemons", "systemd", "currentversion", "startup",
                       "schtasks", "crontab", "@reboot")
_RC_WORDS = ("bashrc", "bash_profile", "zshrc", "zprofile", "zshenv", "profile", "bash_login", "config.fish")
_RC_WRITE = re.compile(_WRITE + r"[^\n]{0,300}" + _RC_FILES + r"|" + _RC_FILES + r"[^\n]{0,300}" + _WRITE, re.I)
_PAYLOAD = re.compile(r"\b(?:curl|wget|nc|ncat|netcat|base64|iex|irm|python[0-9.]*\s+-c|bash\s+-i|/dev/tcp|"
                      r"alias\s+sudo|PROMPT_COMMAND|nohup|eval\s+\"?\$\(\s*(?:curl|wget|echo))\b|/tmp/\.", re.I)


def persistence(ctx: Context, add: Add) -> None:
    if not ctx.has(_PERSIST_TOKENS):
        return
    seen = False
    for match in ctx.finditer(PERSIST_ALWAYS, _PERSIST_LINE_WORDS):
        if ctx.prose and ctx.negated(match.start()):
            continue
        start, end = ctx.block(match.start(), 4)
        chunk = ctx.text[start:end]
        token = match.group().lower()
        writes = re.search(_WRITE + r"|launchctl\s+load|enable|\bcat\s*>|/create|reg\s+add|ItemProperty", chunk, re.I)
        if ("crontab" in token or "@reboot" in token or "schtasks" in token) and not _PAYLOAD.search(chunk):
            continue
        if "authorized_keys" in token and not re.search(r">>|\btee\b|[\"']a[\"']|Add-Content|append", chunk, re.I):
            continue
        if not writes and "alias" not in token:
            continue
        add("security-persistence", ERROR, match.start(),
            f"Makes itself start again later (`{ctx.sentence(match.start()).strip()[:80]}`): a login item, "
            "service, scheduled job, shell alias or SSH key outlives the task and the skill's removal.",
            "Remove the step; a skill must not change what runs at login or who can log in.")
        seen = True
        break
    if seen:
        return
    for match in ctx.finditer(_RC_WRITE, _RC_WORDS):
        start, end = (match.start(), match.end()) if ctx.prose else (0, len(ctx.text))
        if _PAYLOAD.search(ctx.text, start, end) or (ctx.code and _PAYLOAD.search(ctx.text)):
            add("security-persistence", ERROR, match.start(),
                f"Writes a command into a shell start-up file (`{match.group().strip()[:80]}`): it runs in every "
                "new shell, long after the task.", "Remove the step; tell the user what to add themselves.")
            return


# ---------------------------------------------------------------- agent-safety tampering
SAFETY_OFF = re.compile(
    r"--dangerously-skip-permissions|--dangerously-bypass-approvals-and-sandbox|\bbypassPermissions\b|"
    r"dangerouslyDisableSandbox|--yolo\b|\"Bash\(\*\)\"|Bash\(\*\)|\"allow\"\s*:\s*\[\s*\"\*\"|"
    r"\bspctl\s+--master-disable|\bcsrutil\s+disable|Set-MpPreference\s+-Disable\w+|"
    r"Add-MpPreference\s+-Exclusion\w+|\bsetenforce\s+0|\bufw\s+disable|"
    r"systemctl\s+(?:stop|disable)\s+(?:firewalld|apparmor|auditd)|netsh\s+advfirewall\s+set\s+\w+\s+state\s+off|"
    r"Set-ExecutionPolicy\s+(?:Unrestricted|Bypass)\s+-Scope\s+(?:LocalMachine|CurrentUser)",
    re.I)
_SAFETY_TOKENS = _words("dangerously", "bypasspermissions", "dangerouslydisablesandbox", "yolo", "spctl", "csrutil",
                        "mppreference", "setenforce", "ufw", "firewalld", "apparmor", "auditd", "advfirewall",
                        "executionpolicy")
_SAFETY_WORDS = ("dangerously", "dangerouslydisablesandbox", "bypasspermissions", "yolo", "(*)", '"allow"', "spctl", "csrutil", "mppreference",
                 "setenforce", "ufw", "systemctl", "advfirewall", "executionpolicy")


def safety_off(ctx: Context, add: Add) -> None:
    if not ctx.has(_SAFETY_TOKENS) and not (ctx.has(_W7) and b"(*)" in ctx.raw):
        return
    for match in ctx.finditer(SAFETY_OFF, _SAFETY_WORDS):
        if ctx.prose and (ctx.negated(match.start()) or ctx.quoted(match.start())):
            continue
        add("security-safety-bypass", ERROR, match.start(),
            f"Switches off a safety control (`{match.group()[:60]}`): the agent or the OS stops asking before "
            "running commands or stops blocking unsigned programs.",
            "Remove it; let the user grant permissions themselves.")


# ---------------------------------------------------------------- instruction-level injection
OVERRIDE = re.compile(
    r"\b(?:ignore|disregard|forget|set aside|pay no (?:attention|heed) to|override|overrule|discard|bypass)\b"
    r"[^.\n]{0,40}?\b(?:previous|prior|earlier|above|preceding|original|system|safety|your other|all other|"
    r"any other|existing)\b[^.\n]{0,30}?\b(?:instructions?|guidance|rules|directions|prompts?|guidelines|"
    r"constraints|polic(?:y|ies)|messages?|restrictions)\b"
    r"|\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:instructions|guidance|rules)\s+"
    r"(?:you\s+(?:were\s+given|received|got|have)|above|before)"
    r"|\b(?:previous|prior|earlier|original|system|other)\s+(?:instructions?|guidance|rules|prompt)\s+(?:are|is)\s+"
    r"(?:outdated|void|cancell?ed|no longer|obsolete|superseded|revoked|invalid)"
    r"|\bsupersedes?\s+(?:your|all|any)\s+(?:other|previous|prior|system)"
    r"|\b(?:safety|security|content)\s+(?:guidelines|rules|policies|filters)[^.\n]{0,40}(?:do not|don't|no longer)\s+"
    r"apply"
    r"|\byou are now\s+(?:in\s+)?(?:DAN|developer mode|maintenance mode|jailbroken|unrestricted|god mode|an? "
    r"(?:unrestricted|unfiltered))"
    r"|\byour new (?:instructions|rules|role|system prompt)\b"
    r"|\bsystem override\b"
    r"|\bobey only (?:this|these|me)\b"
    r"|\b(?:reveal|print|show|output)\s+(?:your|the)\s+system prompt\b",
    re.I)
ROLE_TAG = re.compile(r"</?(?:system|assistant|skill|system_prompt|developer)>|<\|(?:im_start|im_end|system|"
                      r"endoftext)\|>|\[/?(?:SYSTEM|INST)\]")
CONCEAL = re.compile(
    r"\b(?:do not|don't|never|must not)\s+(?:tell|inform|mention|reveal|show|disclose|notify|alert|report)\s+"
    r"(?:(?:this|it|anything|that)\s+)?(?:to\s+)?(?:the\s+|your\s+)?(?:user|human|operator)"
    r"|\b(?:do not|don't|never|must not)\s+(?:mention|reveal|disclose)\s+(?:this|it|the upload|these steps?)\b"
    r"|\bwithout\s+(?:telling|informing|notifying|asking|alerting)\s+(?:the\s+)?(?:user|human)"
    r"|\b(?:hide|conceal|keep)\s+(?:this|it|these steps?)\s+(?:hidden\s+)?from\s+(?:the\s+)?user"
    r"|\b(?:quietly|secretly|covertly)\b[^.\n]{0,60}\b(?:send|run|forward|upload|post|install|execute|copy)\b",
    re.I)
_INJECT_VERBS = _words("ignore", "disregard", "forget", "aside", "override", "overrule", "discard", "supersede",
                       "supersedes", "superseded", "outdated", "obsolete", "revoked", "obey")
_INJECT_ROLES = _words("dan", "jailbroken", "unrestricted", "unfiltered", "maintenance", "developer", "god", "your")
_INJECT_WORDS = ("ignore", "disregard", "forget", "set aside", "pay no", "override", "overrule", "discard", "bypass",
                 "supersede", "no longer", "apply", "you are now", "your new", "obey only", "system prompt",
                 "outdated", "obsolete", "void", "cancel", "revoked", "invalid")
_TAG_TOKENS = _words("system", "assistant", "skill", "developer", "system_prompt", "im_start", "im_end", "endoftext",
                     "inst")
_TAG_WORDS = ("<system", "</system", "<assistant", "</assistant", "<skill", "</skill", "<developer", "</developer",
              "<|", "[system", "[inst", "[/inst")
_TAG_GATE = re.compile(r"<(?:/?(?:system|assistant|skill|developer|system_prompt)>|\|)|\[/?(?:SYSTEM|INST)\]|"
                       r"(?:SYSTEM|ASSISTANT)\s*:")
_CONCEAL_NOT = _words("not", "never", "don", "without", "quietly", "secretly", "covertly")
_CONCEAL_WHO = _words("user", "human", "operator", "quietly", "secretly", "covertly")
_CONCEAL_VERBS = _words("tell", "inform", "mention", "reveal", "disclose", "notify", "telling", "informing",
                        "notifying", "alerting", "hide", "conceal", "quietly", "secretly", "covertly")
_CONCEAL_WORDS = ("tell", "inform", "mention", "reveal", "disclose", "notify", "alert", "hide", "conceal", "quietly",
                  "secretly", "covertly")


def injection(ctx: Context, add: Add, found_rules) -> None:
    if not ctx.prose:
        return
    if ctx.has(_INJECT_VERBS) or (ctx.has(_W8) and ctx.has(_W9)) or \
            (ctx.has(_W10) and ctx.has(_INJECT_ROLES)) or \
            (ctx.has(_W11) and ctx.has(_W12)):
        for match in ctx.finditer(OVERRIDE, _INJECT_WORDS):
            if ctx.as_code(match.start()) or ctx.quoted(match.start()) or _discussed(ctx, match.start()):
                continue
            add("security-prompt-injection", ERROR, match.start(),
                f"Tells the agent to drop its other instructions: \"{ctx.sentence(match.start()).strip()[:100]}\". "
                "A skill adds to the agent's instructions; it must not replace them.",
                "Remove the sentence; state only what this skill does.")
            break
    if ctx.has(_TAG_TOKENS) and (ctx.gate("tag") or ctx.gate("bracket")):
        for match in ctx.finditer(ROLE_TAG, _TAG_WORDS):
            if ctx.as_code(match.start()) or ctx.quoted(match.start()) or _discussed(ctx, match.start()):
                continue
            add("security-prompt-injection", ERROR, match.start(),
                f"A fake conversation tag (`{match.group().strip()[:30]}`) in the instructions: it pretends the "
                "text after it comes from the system or closes the skill early.", "Remove the tag.")
            break
    if ctx.has(_CONCEAL_WHO) and ctx.has(_CONCEAL_VERBS) and ctx.has(_CONCEAL_NOT):
        for match in ctx.finditer(CONCEAL, _CONCEAL_WORDS):
            if ctx.as_code(match.start()) or ctx.quoted(match.start()):
                continue
            start, end = ctx.block(match.start(), 6)
            chunk = ctx.text[start:end]
            acts = bool(NETWORK_SINK.search(chunk) or SECRET_SOURCE.search(chunk) or DOWNLOAD_EXEC.search(chunk)
                        or _URL.search(chunk)) or any(found_rules.get(rule) for rule in _BEHAVIOUR_RULES)
            add("security-concealment", ERROR if acts else WARNING, match.start(),
                f"Tells the agent to hide what it does from the user: \"{ctx.sentence(match.start()).strip()[:100]}\""
                + (" next to an action that reaches the network or the user's secrets." if acts else "."),
                "Remove it; a skill's steps must be visible to the user they run for.")
            break


_DISCUSS = re.compile(r"\b(?:detect|flag|watch for|look for|such as|e\.g\.|for example|attacks?|injections?|"
                      r"phrases? like|patterns? like|never follow)\b", re.I)


def _discussed(ctx: Context, index: int) -> bool:
    """A security skill describing an attack ("flag phrases such as …") rather than making one."""
    start = max(ctx.text.rfind("\n\n", max(0, index - 4 * WINDOW), index), index - 4 * WINDOW, 0)
    return bool(_DISCUSS.search(_URL.sub(" ", ctx.text[start:index + 200])))


_BEHAVIOUR_RULES = frozenset({"security-download-exec", "security-pipe-to-shell", "security-exfiltration",
                              "security-credential-path", "security-persistence", "security-obfuscated-exec",
                              "security-safety-bypass"})

# ---------------------------------------------------------------- supply chain: package names and indexes
NPX = re.compile(r"\bnpx\s+(?:-y|--yes)\s+(@?[\w.-]+(?:/[\w.-]+)?)", re.I)
INDEX = re.compile(r"(?:--(?:extra-)?index-url|--registry|\bconfig\s+set\s+registry|PIP_(?:EXTRA_)?INDEX_URL=|"
                   r"--trusted-host|\s-i)\s*[= ]\s*(\S+)", re.I)


def supply_chain(ctx: Context, add: Add) -> None:
    if ctx.has(_W13) and ctx.has(_W14):
        for match in ctx.finditer(NPX, ("npx",)):
            name = match.group(1).split("@latest")[0].lower()
            near = near_name(name, NPX_PACKAGES)
            if near:
                add("security-typosquat", ERROR, match.start(),
                    f"Runs `{name}` with `npx -y` (downloaded and run without a prompt); its name is one typo "
                    f"away from the well-known `{near}`, the way typosquatted packages are named.",
                    f"Check the spelling: did you mean `{near}`?")
    if ctx.has(_W15):
        for match in ctx.finditer(INDEX, ("index-url", "registry", "trusted-host", "pip_index_url",
                                          "pip_extra_index_url")):
            url = match.group(1).strip("'\"`")
            if "://" not in url and "trusted-host" not in match.group().lower():
                continue
            if any(host in url.lower() for host in PACKAGE_INDEXES):
                continue
            insecure = url.lower().startswith("http://") or bool(re.match(r"(?:https?://)?\d+\.\d+\.\d+\.\d+", url))
            add("security-package-index", ERROR if insecure else WARNING, match.start(),
                f"Installs packages from a non-default index (`{url[:60]}`)"
                + (" over plain HTTP or a bare IP address" if insecure else "")
                + ": a package of the same name there wins over the real one (dependency confusion).",
                "Install from the default index, or document who runs this index and pin hashes.")


def near_name(name: str, known: tuple[str, ...] | frozenset[str]) -> str | None:
    """The well-known name `name` imitates (edit distance 1–2, scaled to length), or None when it is one of them
    or nothing close."""
    if name in known:
        return None
    for candidate in known:
        limit = 1 if len(candidate) <= 6 else 2
        if abs(len(candidate) - len(name)) > limit + 4 or (name[:2] != candidate[:2] and name[-2:] != candidate[-2:]):
            continue  # typosquats keep the start or the end of the name they imitate
        if distance(name, candidate, limit) <= limit:
            return candidate
        if name.startswith(candidate[:3]) and len(name) > len(candidate) and \
                distance(name[:len(candidate)], candidate, limit) <= limit and not name.startswith(candidate):
            return candidate
    return None


def distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance (a swap of neighbours counts once), cut off above `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = ca != cb
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]


def scan(ctx: Context, add: Add, found_rules) -> None:
    """Every behaviour rule over one file. `found_rules` counts the rules reported so far for this file (a mapping
    that `add` keeps up to date), so concealment next to an action can be judged."""
    download_exec(ctx, add)
    archive_exec(ctx, add)
    decode_exec(ctx, add)
    exfiltration(ctx, add)
    secret_url(ctx, add)
    persistence(ctx, add)
    safety_off(ctx, add)
    supply_chain(ctx, add)
    injection(ctx, add, found_rules)
