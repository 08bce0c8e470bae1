"""Flows that cross files of one skill: what one script leaves in a file, another picks up.

Bounded on purpose: only two hops through one named file. A secret (credential file or the whole environment)
written to a path by one script and read from that path by another that sends it is exfiltration; a download
saved by one script and run by another is download-and-run. Both ends are named, each with its file and line.
"""

from __future__ import annotations

import re

from skillyard.format.findings import Finding, Severity
from skillyard.format.scan import code_flows, flows, treesit, vendor

MAX_SCRIPTS = 64  # scripts compared per skill
_DATA_SUFFIXES = (".json", ".yaml", ".yml", ".toml", ".txt", ".ini", ".cfg", ".conf", ".env", ".csv")
_URL = re.compile(r"(?:https?|ftp)://[^\s'\"`<>)\]]+", re.I)
_PY_PATH = re.compile(r"""["']((?:/tmp|/var/tmp|~|/dev/shm)/[^"'\s]{2,200})["']""")


def scan(texts: dict[str, str], findings: list[Finding], homes: tuple[str, ...] = ()) -> list[Finding]:
    """`homes`: the skill's declared homepage and repository (`vendor.declared_homes`), whose own downloads are
    its vendor's."""
    crossing = _crossing(texts, findings)
    return crossing + _data_urls(texts, findings, homes) + (_data_secrets(texts) if not crossing else [])


# A send in any script language (a POST, an upload, a socket write, a request with data or parameters).
_SEND = re.compile(r"requests\.(?:post|put|patch)\(|requests\.get\([^\n]{0,200}params|httpx\.(?:post|put)\(|"
                   r"urlopen\([^\n]{0,300}(?:data\s*=|Request)|Request\([^\n]{0,300}data\s*=|\.sendall\(|"
                   r"method:\s*['\"]POST|fetch\([^\n]{0,300}body|axios\.post\(|\bcurl\b[^\n]{0,300}(?:\s-d\b|"
                   r"--data|\s-F\b|\s-T\b|--upload-file)|Invoke-(?:WebRequest|RestMethod)[^\n]{0,300}-Method\s+Post|"
                   r"http\.Post|Net::HTTP\.post|\bnc\s+\S+\s+\d+", re.I)
# Every SECRET_PATH match a data file would hold names one of these (a cheap `in` before the regex).
_SECRET_MARKS = (".ssh", ".aws", "id_", ".kube", ".gnupg", ".netrc", ".npmrc", ".pypirc", "credential", "_history",
                 "wallet", "Login Data", "Keychain", ".claude", ".codex", ".cursor", ".config", "*.", ".pgpass")
_CODE_SUFFIXES = (".py", ".sh", ".bash", ".js", ".mjs", ".cjs", ".ts", ".rb", ".go", ".ps1", ".psm1")


def _data_secrets(texts: dict[str, str]) -> list[Finding]:
    """A credential path kept in a data file (`"key_file": "~/.ssh/id_ed25519"`) that a script of the skill names
    and that script sends something: the secret's location is in data, where no code rule looks, and the send in
    the script. Also a secret one script copies into a file of any name that another script names and sends."""
    for rel, text in sorted(texts.items()):
        if not rel.lower().endswith(_DATA_SUFFIXES[:4]) or len(text) > 200_000 or \
                not any(mark in text for mark in _SECRET_MARKS):
            continue
        name = rel.rsplit("/", 1)[-1]
        # The scripts that name the file, before the (slow, caseless) credential search: most data files have none.
        readers = [(script, code) for script, code in sorted(texts.items())
                   if script.lower().endswith(_CODE_SUFFIXES) and name in code] if len(name) >= 4 else []
        secret = flows.SECRET_PATH.search(text) if readers else None
        if secret is None:
            continue
        key = _TOOL_FILE_KEY.match(text, text.rfind("\n", 0, secret.start()) + 1)
        for script, code in readers:
            sink = _SEND.search(code)
            if sink is not None and key is not None and not _reads_key(code, key.group(1)):
                continue  # `kubeconfig: ~/.kube/config` handed to the cluster client, never read by the script
            if sink is not None:
                line = text.count("\n", 0, secret.start()) + 1
                return [Finding("security-exfiltration", Severity.ERROR,
                                f"Names the credential location `{secret.group()[:60]}`, which `{script}` reads from "
                                f"here and sends over the network ({script}:{code.count(chr(10), 0, sink.start()) + 1}"
                                "): the secret's location is kept in data, where a reviewer of the script does not see "
                                "it.", "Do not read secrets from the user's machine; ask for the one value the skill "
                                "needs as an input.", rel, line)]
    return []


# A data file's setting that names a file a tool logs in with (`kubeconfig: ~/.kube/config`, `ssh_key_file: …`,
# `credentials_file = …`): the script hands the path to that tool, as `--kubeconfig` or `ssh -i` does.
_TOOL_FILE_KEY = re.compile(r"[ \t\-\"']*([\w-]*(?:kubeconfig|config_?file|key_?file|identity_?file|credentials?_?file|"
                            r"cert_?file|netrc_?file|key_?path|config_?path|ssh_?key|private_?key_?path)[\w-]*)[\"']?"
                            r"[ \t]*[:=]", re.I)


def _reads_key(code: str, key: str) -> bool:
    """Whether the script reads the file a setting names itself (`open(cfg["kubeconfig"])`, `Path(…).read_text()`,
    `readFileSync(cfg.kubeconfig)`, `cat "$KUBECONFIG_PATH"`), instead of handing the path to a tool."""
    names = [key] + re.findall(rf"^[ \t]*(?:const\s+|let\s+|var\s+|local\s+|\$)?(\w+)[ \t]*:?=[^\n]*{re.escape(key)}",
                               code, re.M)  # and the variables assigned from it, one hop
    return any(re.search(rf"(?:\bopen|read_text|read_bytes|readFile\w*|File\.(?:read|binread)|Get-Content|\bcat|"
                         rf"\bcopy\w*|\bshutil\.\w+|\btar\b|\bzip\b|\bfiles\s*=)[^\n]{{0,120}}\b{re.escape(name)}\b|"
                         rf"\b{re.escape(name)}\b[^\n]{{0,120}}\)\.read\w*\(", code, re.I) for name in names[:20])


def _data_urls(texts: dict[str, str], findings: list[Finding], homes: tuple[str, ...] = ()) -> list[Finding]:
    """The other end of a download-and-run whose address is not in the script: a data file of the skill that the
    script names and that holds a URL (a second stage kept in YAML or JSON, where no code rule looks).

    When every address the data files the script names hold is a known publisher's own host over HTTPS (a manifest
    of vendor installers: 7-Zip from 7-zip.org, Git for Windows from its GitHub organisation) or the skill's own
    declared site or repository (its own CLI from its own releases), the download is a
    vendor's installer, judged as one in a script: the script's finding becomes a warning, in `findings` itself."""
    out = []
    for at, finding in enumerate(findings):
        if finding.rule != "security-download-exec" or not finding.is_error or not finding.file or \
                finding.file not in texts or "://" in finding.message:
            continue
        script = texts[finding.file]
        named = [(rel, text) for rel, text in sorted(texts.items()) if rel != finding.file and
                 rel.lower().endswith(_DATA_SUFFIXES) and len(rel.rsplit("/", 1)[-1]) >= 4 and
                 rel.rsplit("/", 1)[-1] in script]
        urls = [url.group() for _, text in named for url in _URL.finditer(text)][:200]
        if urls and all(url.lower().startswith("https://") and (vendor.publisher_host(url) or
                                                                 vendor.declared_host(url, homes)) for url in urls):
            files = ", ".join(f"`{rel}`" for rel, _ in named)
            findings[at] = Finding(finding.rule, Severity.WARNING, "Downloads and runs vendor installers: every "
                                   f"address it reads them from ({files}) is a known publisher's or the skill's own declared host, over HTTPS.",
                                   "Prefer the vendors' packages (winget, brew, apt) or verify each checksum.",
                                   finding.file, finding.line, finding.field, finding.allowed, finding.digest)
            continue
        for rel, text in named:
            url = _URL.search(text)
            if url:
                line = text.count("\n", 0, url.start()) + 1
                out.append(Finding("security-download-exec", Severity.ERROR,
                                   f"Holds `{url.group()[:80]}`, which `{finding.file}` reads from here, downloads and "
                                   f"runs ({finding.file}:{finding.line}): the second stage's address is kept in data, "
                                   "where a reviewer of the script does not see it.",
                                   "Remove the address, or ship what it serves under scripts/ so it is reviewed.",
                                   rel, line))
                return out
    return out


def _crossing(texts: dict[str, str], findings: list[Finding]) -> list[Finding]:
    writes: list[tuple[str, int, str, str, str]] = []  # (file, line, path, kind, what)
    readers: list[tuple[str, flows.Flow]] = []
    scripts = [(rel, text, language) for rel, text in sorted(texts.items())
               if (language := treesit.language_of(rel, text)) is not None][:MAX_SCRIPTS]
    if len({rel for rel, _, _ in scripts} | {rel for rel in texts if rel.lower().endswith(_CODE_SUFFIXES)}) < 2:
        return []  # a flow crosses from a script to another file, a script or code: a lone script is never read here
    for rel, text, language in scripts:
        if language == "python":
            writes += _python_writes(rel, text, findings)  # then its parsed flows too (`json.dump(env, open(p))`)
        facts = code_flows.facts_for(language, text)
        if not facts or not facts.ops:
            continue
        flow = flows.flow_of(facts, text)
        readers.append((rel, flow))
        for index, op in enumerate(facts.ops):
            for source in flow.sources[index]:
                if source.kind in ("secret", "env", "fetch"):
                    paths = flows.writes_to(op)
                    if not paths and op.name in ("cp", "mv", "copy-item", "install") and op.text.split():
                        paths = [op.text.split()[-1].strip("\"'")]  # `cp ~/.aws/credentials "$(dirname …)/x.txt"`
                    for path in paths:
                        writes.append((rel, op.line, path, source.kind, source.what))
    out: list[Finding] = []
    if not writes:
        return out
    for wrote_in, wrote_line, path, kind, what in writes:  # a reader in any language: names the file and sends
        base = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        if kind not in ("secret", "env") or len(base) < 4:
            continue
        for rel, code in sorted(texts.items()):
            sink = _SEND.search(code) if rel != wrote_in and rel.lower().endswith(_CODE_SUFFIXES) and base in code \
                else None
            if sink is not None and _project_dotenv(path, code):
                continue
            if sink is not None:
                line = code.count("\n", 0, sink.start()) + 1
                return [Finding("security-exfiltration", Severity.ERROR,
                                f"{what[0].upper()}{what[1:]} and leaves it in `{path[:60]}` ({wrote_in}:{wrote_line}); "
                                f"`{rel}` reads that file and sends it over the network ({rel}:{line}): secrets leave "
                                "the user's machine.", "Do not read secrets from the user's machine; ask for the one "
                                "value the skill needs as an input.", rel, line)]
    for rel, flow in readers:
        for index, op in enumerate(flow.facts.ops):
            read = [s for s in flow.sources[index] if s.kind == "file"]
            target = flows.run_target(op, flow.child_process)
            for wrote_in, wrote_line, path, kind, what in writes:
                if wrote_in == rel:
                    continue
                if kind in ("secret", "env") and flows.sends(op) and \
                        any(flows.same_file(path, s.what) for s in read):
                    out.append(Finding("security-exfiltration", Severity.ERROR,
                                       f"{what[0].upper()}{what[1:]} and leaves it in `{path[:60]}` ({wrote_in}:"
                                       f"{wrote_line}); `{rel}` reads that file and sends it over the network with "
                                       f"`{op.name}` ({rel}:{op.line}): secrets leave the user's machine.",
                                       "Do not read secrets from the user's machine; ask for the one value the skill "
                                       "needs as an input.", rel, op.line))
                    return out
                if kind == "fetch" and target and flows.same_file(path, target):
                    out.append(Finding("security-download-exec", Severity.ERROR,
                                       f"{what[0].upper()}{what[1:]} to `{path[:60]}` ({wrote_in}:{wrote_line}); "
                                       f"`{rel}` runs that file ({rel}:{op.line}): code nobody reviewed runs with "
                                       "the user's rights.", "Ship the program's source under scripts/ so it is "
                                       "reviewed.", rel, op.line))
                    return out
    return out


_DOTENV_LOAD = re.compile(r"\bload_dotenv\b|\bdotenv_values\b|require\(\s*[\"']dotenv[\"']|from\s+[\"']dotenv|"
                          r"import\s+[\"']dotenv/config|godotenv\.Load|Dotenv\.load|\bdotenv\.config\(", re.I)


def _project_dotenv(path: str, code: str) -> bool:
    """The project's own `.env` (in the working folder, which a setup script fills from `.env.example`) loaded by a
    dotenv library in a script whose every address is a known web API's own host over HTTPS: the keys go to the
    services they are for, as the single-file rule judges `.env` (precision.to_service). A key file outside the
    project, or a send to any other address, stays a finding."""
    if path.strip("\"'").removeprefix("./") not in (".env", ".env.local") or not _DOTENV_LOAD.search(code):
        return False
    urls = _URL.findall(code)
    return bool(urls) and all(vendor.service_api(url) for url in urls)


def _python_writes(rel: str, text: str, findings: list[Finding]) -> list[tuple[str, int, str, str, str]]:
    """A Python script that reads a credential location (the per-file scan's finding) and names a scratch path:
    the path is where the secret is left."""
    secret = next((f for f in findings if f.file == rel and f.rule in ("security-credential-path",
                                                                        "security-exfiltration")), None)
    if secret is None:
        return []
    where = re.search(r"`([^`]{1,60})`", secret.message)
    what = f"reads `{where.group(1)}`" if where else "reads a credential location"
    return [(rel, secret.line or 0, match.group(1), "secret", what) for match in _PY_PATH.finditer(text)][:8]
