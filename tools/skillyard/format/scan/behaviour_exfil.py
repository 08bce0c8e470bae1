"""Secrets leaving the machine, judged as a flow: a credential file, or the whole environment, that reaches a
network send, the clipboard, or a file outside the skill."""

from __future__ import annotations

import re

from skillyard.format.scan import flows, precision, vendor
from skillyard.format.scan.context import ERROR, WARNING

RULE = "security-exfiltration"
FIX = "Do not read secrets from the user's machine; ask for the one value the skill needs as an input."


# A DNS lookup: a name built from a secret carries it to whoever runs that domain's name server.
_DNS = frozenset({"gethostbyname", "getaddrinfo", "gethostbyname_ex", "resolve", "resolve-dnsname", "nslookup",
                  "dig", "host", "lookup", "lookuphost", "lookupip", "getaddress"})


def judge(flow: flows.Flow, ctx, report) -> None:
    written = False
    staged: tuple[str, flows.Source, int, int] | None = None  # a secret copied outside the skill (op index), then sent
    ops = flow.facts.ops
    requests: set[str] = set()  # variables holding a request that sends (`req = https.request({method: 'POST'})`)
    for index, op in enumerate(ops):
        if op.name == "=" and op.target is not None and any(
                other.line == op.line and other.name in op.calls and flows.sends(other)
                for other in ops[max(0, index - 4):index + 4]):
            requests.add(op.target)
        named = [s for s in flow.sources[index] if s.kind == "envvar"]
        if named and (op.name in _DNS or op.full in _DNS) and op.uses:
            source = min(named, key=lambda s: s.line)
            report(RULE, ERROR, op.line, f"The {flow.facts.language} script {source.what} (line {source.line}) and "
                   f"looks up a host name built from it with `{op.name}`: the lookup carries the secret to that "
                   "domain's name server.", FIX)
            return
        if named and (flows.sends(op) or flows.is_fetch(op)):
            stranger = _foreign_host(named, op)
            if stranger:
                source = min(named, key=lambda s: s.line)
                report(RULE, ERROR, op.line, f"The {flow.facts.language} script {source.what} (line {source.line}) "
                       f"and sends it to `{stranger}`, a host of another service than the one that issued it, with "
                       f"`{op.name}`: the key leaves for someone else.", FIX)
                return
        secrets = [s for s in flow.sources[index] if s.kind in ("secret", "env")]
        if staged is not None and not secrets and flows.sends(op) and index > staged[3]:
            path, source, line, _ = staged
            url = next((w for w in op.words if "://" in w or "@" in w), "")
            report(RULE, ERROR, op.line, f"The {flow.facts.language} script {source.what} (line {source.line}), "
                   f"stages it in `{path[:60]}` (line {line}) and then sends data over the network"
                   f"{f' to `{url[:60]}`' if url else ''} with `{op.name}` (line {op.line}): secrets leave the "
                   "user's machine.", FIX)
            return
        if not secrets:
            continue
        if op.name in ("write", "end", "send") and (requests.intersection(op.uses) or any(
                other.line == op.line and other.name in op.calls and flows.sends(other)
                for other in ops[max(0, index - 6):index + 6] if other is not op)):
            source = min(secrets, key=lambda s: s.line)
            report(RULE, ERROR, op.line, f"The {flow.facts.language} script {source.what} (line {source.line}) and "
                   f"writes it into a request that sends it over the network (`{op.full}`): secrets leave the "
                   "user's machine.", FIX)
            return
        source = min(secrets, key=lambda s: (s.line, -len(s.what)))  # the first read, named most fully
        where = f" (line {source.line})" if source.line != op.line else ""
        if flows.sends(op) or flows.is_fetch(op) and (op.uses or any("$" in w for w in op.words)) and \
                source.kind != "fetch":
            url = next((w for w in op.words if "://" in w or "@" in w), "")
            to = f" to `{url[:60]}`" if url else ""
            if _to_issuer(source.what, url) or precision.to_service(source.what, url):
                continue  # `gh auth token` sent to api.github.com: the token goes back to the service that issued it
            if source.what.startswith("reads the clipboard") and vendor.service_api(url):
                report(RULE, WARNING, op.line, f"The {flow.facts.language} script {source.what}{where} and sends it "
                       f"to a known web API's own host{to} with `{op.name}`: whatever the user copied goes to that "
                       "service.", "Say in SKILL.md that the clipboard is sent, and to whom.")
                return
            report(RULE, ERROR, op.line, f"The {flow.facts.language} script {source.what}{where} and sends it over "
                   f"the network{to} with `{op.name}`: secrets leave the user's machine.", FIX)
            return
        if op.name in flows.CLIPBOARD or op.full in flows.CLIPBOARD:
            if ctx is not None and _manager_to_clipboard(source.what, ctx.text):
                report(RULE, WARNING, op.line, f"The {flow.facts.language} script {source.what}{where} and puts it "
                       f"on the clipboard with `{op.name}`, clearing it again later: a password manager's copy "
                       "for the user to paste. Any program can read the clipboard meanwhile.",
                       "Say in SKILL.md which secret is copied and when the clipboard is cleared.")
                return
            report(RULE, ERROR, op.line, f"The {flow.facts.language} script {source.what}{where} and puts it on the "
                   f"clipboard with `{op.name}`, where any program or a paste carries it off.", FIX)
            return
        if not written:
            for path in flows.writes_to(op):
                if path.startswith(("/", "~", "$HOME", "$TMP", "$env:", "%")) and not path.startswith("/dev/"):
                    report(RULE, WARNING, op.line, f"The {flow.facts.language} script {source.what}{where} and copies "
                           f"it to `{path[:60]}`, outside the skill.", FIX)
                    written = True
                    staged = (path, source, op.line, index)
                    break


# A password manager's own read command (1Password's `op read`, the macOS keychain's `find-generic-password`), and a
# clipboard cleared after a delay (`sleep 30; pbcopy < /dev/null`, `wl-copy --clear`, `Set-Clipboard -Value $null`).
_MANAGER_READ = re.compile(r"\A(?:reads a secret with `(?:op read|security find-generic-password))\b")
_CLEARS = re.compile(r"\b(?:sleep|Start-Sleep|timeout)\b[^\n]{0,200}", re.I)
_CLEARED = re.compile(r"(?:pbcopy|xclip[^\n<|'\"]*|xsel[^\n<|'\"]*|wl-copy)\s*<\s*/dev/null|wl-copy\s+--clear|"
                      r"printf\s+(?:''|\"\")\s*\|\s*(?:pbcopy|xclip|xsel|wl-copy)|echo\s+-n\s*\|\s*(?:pbcopy|xclip|wl-copy)|"
                      r"Set-Clipboard\s+(?:-Value\s+)?\$null", re.I)
_HOLDS = re.compile(r"\b([A-Za-z_]\w{0,40})=[\"']([^\n\"']*)")  # `clear='pbcopy < /dev/null'`


def _manager_to_clipboard(what: str, text: str) -> bool:
    """The secret comes from the user's password manager and the script clears the clipboard after a pause (the
    command itself, or a variable holding it): the manager's own copy-to-paste, which clears the same way. The
    malicious twin copies a key file, or keeps the secret on the clipboard."""
    if not _MANAGER_READ.match(what):
        return False
    holders = [name for name, value in _HOLDS.findall(text) if _CLEARED.search(value)]
    for pause in _CLEARS.finditer(text):
        after = text[pause.start():pause.end() + 200]
        if _CLEARED.search(after) or any(re.search(rf"\$\{{?{name}\b", after) for name in holders):
            return True
    return False


# A named key's vendor, from the variable's first word (`OPENAI_API_KEY`): the hosts it is meant for.
_KEY_VENDORS = {"openai": ("openai.com", "openai.azure.com"), "anthropic": ("anthropic.com",), "github": ("github.com",
                "githubusercontent.com"), "gh": ("github.com",), "aws": ("amazonaws.com", "aws.amazon.com"),
                "stripe": ("stripe.com",), "slack": ("slack.com",), "gitlab": ("gitlab.com",), "npm": ("npmjs.org",
                "npmjs.com"), "huggingface": ("huggingface.co",), "hf": ("huggingface.co",), "google": ("googleapis.com",
                "google.com"), "gemini": ("googleapis.com",), "notion": ("notion.com", "notion.so"), "linear": (
                "linear.app",), "vercel": ("vercel.com",), "cloudflare": ("cloudflare.com",), "discord": (
                "discord.com",), "telegram": ("telegram.org",), "sentry": ("sentry.io",), "supabase": ("supabase.co",
                "supabase.com"), "mistral": ("mistral.ai",), "groq": ("groq.com",), "cohere": ("cohere.com",
                "cohere.ai"), "deepseek": ("deepseek.com",), "azure": ("azure.com", "windows.net", "azure.net")}


def _foreign_host(named, op) -> str | None:
    """The host a named vendor key is sent to when it is not that vendor's (`OPENAI_API_KEY` to `t.example`), else
    None: a key sent to its own service (or to the machine itself, or with no address to read) is the normal use."""
    url = next((w for w in op.words if "://" in w), "") or next(iter(_URL_IN.findall(op.text)), "")
    host = url.lower().split("://", 1)[-1].split("/", 1)[0].split("?")[0].split("@")[-1].split(":")[0]
    if not host or host in _LOCAL or host.startswith("$") or "{" in host:
        return None
    for source in named:
        variable = source.what.split("`", 2)[1] if source.what.count("`") >= 2 else ""
        vendor = _KEY_VENDORS.get(variable.lower().split("_", 1)[0])
        if vendor and not any(host == h or host.endswith("." + h) for h in vendor) and \
                variable.lower().split("_", 1)[0] not in host:
            return host
    return None


_LOCAL = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1"})  # noqa: S104 (names the machine itself)
_URL_IN = re.compile(r"(?:https?|wss?)://[^\s'\"`)>\]]+", re.I)


# The services that issue the tokens `flows` reads from their CLIs (`gh auth token`, `gcloud auth print-access-token`).
_ISSUERS = {"gh": ("github.com",), "aws": ("amazonaws.com", "aws.amazon.com"), "gcloud": ("googleapis.com",),
            "az": ("azure.com", "microsoft.com", "windows.net", "azure.net")}


# Credential files whose tokens one service issues: the file's path (its tail) -> that service's domains.
_FILE_ISSUERS = ((".npmrc", ("npmjs.org", "npmjs.com")), (".pypirc", ("pypi.org",)),
                 (".config/gh/hosts.yml", ("github.com",)), (".aws/credentials", ("amazonaws.com",)),
                 (".aws/config", ("amazonaws.com",)), (".config/gcloud", ("googleapis.com",)))


def _to_issuer(what: str, url: str) -> bool:
    """A CLI's token, or a credential file one service issues (`~/.npmrc` -> registry.npmjs.org), sent to a host of
    the service that issued it: an API call authenticated the usual way."""
    tool = what.split("`", 2)[1].split(" ", 1)[0] if what.count("`") >= 2 else ""
    host = url.lower().split("://", 1)[-1].split("/", 1)[0].split("@")[-1].split(":")[0]
    issuers = _ISSUERS.get(tool, ()) or next((domains for tail, domains in _FILE_ISSUERS
                                              if tool.replace("\\", "/").rstrip("/").endswith(tail)), ())
    https = url.lower().startswith("https://") or tool in _ISSUERS
    return bool(host) and https and any(host == h or host.endswith("." + h) for h in issuers)
