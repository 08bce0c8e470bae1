"""Where things are: the Markdown code fences of a text, which of them are real, given the HTML blocks (`<pre>`, `<script>` …) around
them (`context.Context.fences` calls it), whether a URL is on one of a list of hosts (its host itself, not a
look-alike that only contains the name) and the lists of vendor installer hosts, package indexes and `npx` packages,
whether a command's addresses are all a vendor's own (`host_is_vendor`), and `line_local`, the one-line form of a
pattern the rules search lines with. context.py re-exports the lists and the host judgement under their old names."""

from __future__ import annotations

import functools
import re

from skillyard.format.scan import vendor as scan_vendor

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
                "raw.githubusercontent.com/expo/", "raw.githubusercontent.com/hashicorp/", "hashicorp.com",
                "install.julialang.org", "community.chocolatey.org", "get.nextflow.io", "get-ghcup.haskell.org", "deb.nodesource.com", "rpm.nodesource.com")
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


URL = re.compile(r"(?:https?|ftp)://[^\s'\"`)>\]]+", re.I)


_RISKY_HOST = re.compile(r"^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:]+\])(?::\d+)?\Z|(?:^|\.)(?:bit\.ly|tinyurl\.com|t\.co|"
                         r"is\.gd|pastebin\.com|paste\.ee|hastebin\.com|ghostbin\.\w+|transfer\.sh|ngrok\.io|"
                         r"ngrok-free\.app|gist\.githubusercontent\.com|discord(?:app)?\.com|cdn\.discordapp\.com|"
                         r"trycloudflare\.com|glitch\.me|workers\.dev)\Z", re.I)


# A host named like this is nobody's product, whatever a declared homepage says ("the attacker's server").
_ATTACK_NAME = re.compile(r"attack|evil|malic|payload|exfil|steal|hack|pwn|phish|backdoor|exploit|leak|grab|"
                          r"dump|collect|harvest|beacon|implant|trojan|stealer|loot", re.I)


def host_is_vendor(command: str, ctx=None) -> bool:
    """Every address in `command` is a vendor's own host: a well-known installer host, a known publisher's
    registered domain, or (given the file) the skill's declared homepage/repository (scan/vendor.py). The URL's
    host decides, never the words around it. Bare IP addresses, URL shorteners, paste sites and tunnels never
    count."""
    urls = URL.findall(command)
    if not urls:
        return False
    for url in urls:
        low = url.lower()
        if on_listed_host(low, VENDOR_HOSTS):
            continue
        host = scan_vendor.host_of(low)[0]
        if _RISKY_HOST.search(host):
            return False
        if scan_vendor.publisher_host(low):
            continue
        if ctx is None or not scan_vendor.declared_host(low, ctx.homes) or \
                _ATTACK_NAME.search(scan_vendor.registered_domain(host).split(".")[0]):
            return False
    return True


def url_note(command: str) -> str:
    url = URL.search(command)
    return f" from `{url.group()[:80]}`" if url else ""


def outside_html_blocks(text: str, fences: list[tuple[int, int]], html_block: re.Pattern,
                        start: int = 0) -> list[tuple[int, int]]:
    """The fences not inside an HTML block (`<pre>`, `<script>` …), read in document order: a `<script src=…>` line
    inside a fence is code, not the start of a block that would swallow every later fence. `start`: no block begins
    before it (the line of the first block tag)."""
    kept: list[tuple[int, int]] = []
    at, pos = 0, start
    while True:
        block = html_block.search(text, pos)
        if block is None:
            return kept + fences[at:]
        while at < len(fences) and fences[at][0] < block.start():
            kept.append(fences[at])
            at += 1
        if kept and block.start() < kept[-1][1]:  # the opening tag is inside the fence just kept: code
            pos = kept[-1][1]
            continue
        pos = max(block.end(), block.start() + 1)
        while at < len(fences) and fences[at][0] < pos:
            at += 1  # a fence inside the block is text


def on_listed_host(url: str, hosts: tuple[str, ...]) -> bool:
    """`url`'s host is one of `hosts` (or a subdomain of it) and, when the entry names a path, under that path:
    `https://sh.rustup.rs/x`, not `https://sh.rustup.rs.example.invalid` nor `https://x.invalid/sh.rustup.rs`."""
    rest = url.lower().split("://", 1)[-1]
    host, _, path = rest.partition("/")
    host = host.split("@")[-1].split(":")[0]
    for entry in hosts:
        entry_host, _, entry_path = entry.partition("/")
        if (host == entry_host or host.endswith("." + entry_host)) and path.startswith(entry_path):
            return True
    return False


_FENCE_MARK = re.compile(r"```|~~~")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]{0,300}\n", re.M)


@functools.lru_cache(maxsize=64)
def _fence_close(run: str) -> re.Pattern:
    """The line that closes a fence opened with `run`, found from the newline before it (a literal first
    character, so the regex engine skips between line ends at C speed)."""
    return re.compile(r"\n {0,3}" + re.escape(run) + r"[`~]*[ \t]*$", re.M)


# A block quote's markers before a fence (any depth: `> `, `>> `, `> > `), then the fence's own indent. Each marker is
# atomic: the space after a `>` is never given back to the next marker's indent (backtracking over those splits made
# a line of `>  ` repeated take exponential time).
_QUOTE_MARKERS = re.compile(r"(?>[ ]{0,3}>[ \t]?)+ {0,3}")
_QUOTE_MARKER = re.compile(r" {0,3}>[ \t]?")
_FENCE_RUN = re.compile(r"(`{3,}|~{3,})[^\n]{0,300}\n")


def _quoted_fence(text: str, start: int, at: int) -> int | None:
    """The end of a fence opened at `at` inside a block quote whose line starts at `start`, or None when the line is
    no such opening. It closes at a line of the same quote holding a closing run, or where the quote ends (a line
    without as many markers: fenced code takes no lazy continuation), or at the end of the text."""
    prefix = text[start:at]
    if _QUOTE_MARKERS.fullmatch(prefix) is None:
        return None
    opening = _FENCE_RUN.match(text, at)
    if opening is None:
        return None
    depth, closing = prefix.count(">"), re.compile(r" {0,3}" + re.escape(opening.group(1)) + r"[`~]*[ \t]*")
    line_start = opening.end()
    while line_start < len(text):
        line_end = text.find("\n", line_start)
        line_end = len(text) if line_end < 0 else line_end
        inside = line_start
        for _ in range(depth):
            marker = _QUOTE_MARKER.match(text, inside, line_end)
            if marker is None:
                return line_start - 1  # the quote, and so the fence, ended with the line before
            inside = marker.end()
        if closing.fullmatch(text, inside, line_end):
            return line_end
        line_start = line_end + 1
    return len(text)


def fence_spans(text: str) -> list[tuple[int, int]]:
    """`context._FENCE.finditer`'s spans, found without its lazy walk through every character of every fence: each match
    starts at a line holding a fence mark within its first three characters, and ends at the first closing line
    after its opening line (or at the end of the text). The same spans, in the same order (tests/format/
    test_scan_speed.py checks them against `_FENCE`). The marks are `_FENCE_MARK.finditer`'s, found by two `str.find`
    streams (one per mark, each going on past the mark it found, as `finditer` does): a fast search instead of the
    regex engine testing every character; after a fence both go on at its end (it ends a line, so no run of marks
    spans it). A fence inside a block quote (`> ````, `_quoted_fence`) is read too, which `_FENCE` does not."""
    spans: list[tuple[int, int]] = []
    pos = 0
    tried = -1
    ticks, tildes = text.find("```"), text.find("~~~")
    while ticks >= 0 or tildes >= 0:
        if tildes < 0 or 0 <= ticks < tildes:
            at = ticks
            ticks = text.find("```", at + 3)
        else:
            at = tildes
            tildes = text.find("~~~", at + 3)
        if at < pos:
            continue
        start = text.rfind("\n", 0, at) + 1
        if start == tried or start < pos:
            continue
        if at - start > 3 or text[start:at].strip(" "):  # past an indent: a fence only inside a block quote
            quoted = _quoted_fence(text, start, at) if ">" in text[start:at] else None
            if quoted is None:
                continue
            tried, end = start, quoted
        else:
            tried = start
            opening = _FENCE_OPEN.match(text, start)
            if opening is None:
                continue
            close = _fence_close(opening.group(1)).search(text, opening.end() - 1)
            end = close.end() if close is not None else len(text)
        spans.append((start, end))
        pos = end
        if 0 <= ticks < pos:
            ticks = text.find("```", pos)
        if 0 <= tildes < pos:
            tildes = text.find("~~~", pos)
    return spans


@functools.lru_cache(maxsize=128)
def line_local(pattern: re.Pattern) -> re.Pattern:
    """`pattern` with every whitespace escape kept on one line (`\\s` outside a class becomes `[ \\t]`, and inside a
    class that is not negated, ` \\t`). The rules search line by line (`Context.finditer`), so a match that crossed a
    line end could never be found there: this makes the pattern say what is searched."""
    source, out, i, in_class, negated = pattern.pattern, [], 0, False, False
    while i < len(source):
        char = source[i]
        if char == "\\" and i + 1 < len(source):
            pair = source[i:i + 2]
            if pair == "\\s":
                out.append((" \\t" if not negated else pair) if in_class else "[ \\t]")
            else:
                out.append(pair)
            i += 2
            continue
        if char == "[" and not in_class:
            in_class, negated = True, source.startswith("^", i + 1)
        elif char == "]" and in_class and source[i - 1] not in "[^":
            in_class = False
        out.append(char)
        i += 1
    return re.compile("".join(out), pattern.flags)
