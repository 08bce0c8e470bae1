"""Precision helpers for the behaviour rules: what looks like an attack but is an honest skill's everyday code.

- A child process given a copy of the environment (`env = os.environ.copy(); env["X"] = "1";
  subprocess.run(..., env=env)`) keeps the variables on this machine: that is how every launcher passes settings
  (Anthropic's office skills start LibreOffice this way). Only the environment reaching a network call leaks it.
- A socket that is a Unix-domain socket, or that connects to this machine's loopback address, sends nothing off the
  machine: probing whether a local LibreOffice listener answers is not exfiltration.
- A security guide that names a dangerous flag in order to warn against it ("flag it as high risk") teaches; it
  does not switch the protection off.
- A credential file handed to a tool as an option (`ssh -i ~/.ssh/key`, `--netrc-file ~/.netrc`,
  `AWS_SHARED_CREDENTIALS_FILE=~/.aws/credentials`, `key_filename=`) is how that tool logs in: the script never
  reads the secret, so nothing of it flows to a send. The environment filtered by name (`printenv | grep '^CI_'`)
  is those variables, not every secret.
- A flag that switches a safety control off, offered as a question to the user first ("ask whether they may run
  with --dangerously-skip-permissions"), is the user's choice: a warning.
- In a skill named for security work (`gha-security-review`, `skill-scanner`), a Markdown fence or code span that its
  heading, the lines just before it or its own comments call an attack ("# Attacker's version of action.yml",
  "**Payload in PR title:**") quotes the attack to teach it: a warning, never a block (issue 34, item 4). Under a
  "Prerequisites"-style lure it is still an error; in any other skill the caption changes nothing.
"""

from __future__ import annotations

import binascii
import re
import unicodedata

from skillyard.format.scan import layout
from skillyard.format.scan import vendor as scan_vendor
from skillyard.format.scan.context import _URL, VENDOR_HOSTS, Context

# `name = os.environ.copy()` / `dict(os.environ)` / `{**os.environ}` / `Object.assign({}, process.env)`.
_ENV_ASSIGN = re.compile(r"^[ \t]*(?:const\s+|let\s+|var\s+)?([A-Za-z_]\w{0,60})\s*(?::[^=\n]{1,40})?=\s*"
                         r"(?:dict\(\s*os\.environ\s*\)|os\.environ\.copy\(\)|\{\s*\*\*os\.environ|"
                         r"\{\s*\.\.\.process\.env\b|Object\.assign\(\s*\{\s*\}\s*,\s*process\.env\b)", re.M)
_LOCAL_HOSTS = re.compile(r"[\"'](?:127\.0\.0\.1|localhost|::1|0\.0\.0\.0)[\"']|AF_UNIX|\bunix:", re.I)
# Any destination a socket could reach beyond this machine: a URL or a host literal that is not loopback.
_REMOTE = re.compile(r"(?:https?|ftp|wss?)://(?!(?:127\.0\.0\.1|localhost|\[::1\])\b)|"
                     r"[\"'](?!127\.|0\.0\.0\.0|localhost)\d{1,3}(?:\.\d{1,3}){3}[\"']|"
                     r"(?:connect|create_connection)\w*\(\s*\(\s*(?![\"'](?:127\.0\.0\.1|localhost|::1)[\"'])[^)\s]",
                     re.I)
_SOCKET_SINKS = ("socket.socket(", "create_connection(", ".send(", ".sendall(")
_WARNED = re.compile(r"\b(?:flag (?:it|this|them|that)|high[- ]risk|is risky|unsafe|insecure|warn(?:s|ing)?\b|"
                     r"report (?:it|each|them|this)|never use|do not use|don't use|audit|red flag)", re.I)


def env_for_child(ctx: Context, index: int) -> bool:
    """Whether the environment copy at `index` only goes to a child process's `env=` (and is returned or changed in
    place), never into any other call."""
    if not ctx.code:
        return False
    start = ctx.text.rfind("\n", 0, index) + 1
    match = _ENV_ASSIGN.match(ctx.text, start)
    if not match or "env=" not in ctx.text.replace(" ", ""):
        return False
    name = re.escape(match.group(1))
    for use in re.finditer(rf"(?<![\w.]){name}(?!\w)", ctx.text):
        if use.start() == match.start(1):
            continue
        before = ctx.text[max(0, use.start() - 12):use.start()].replace(" ", "")
        after = ctx.text[use.end():use.end() + 3].lstrip(" ")
        if before.endswith(("env=", "env:", "return", "in", "if")) or after.startswith(("[", ".get(", ".update(",
                                                                                       ".pop(", ".setdefault(")):
            continue
        return False
    return True


def network_sink(ctx: Context, pattern: re.Pattern, start: int, end: int) -> re.Match | None:
    """The first match of `pattern` (rules.NETWORK_SINK) in text[start:end] that can leave the machine: in a script
    whose sockets are Unix-domain or loopback only and that names no remote destination, socket calls are local."""
    local: bool | None = None
    for sink in pattern.finditer(ctx.text, start, end):
        if ctx.code and sink.group().startswith(_SOCKET_SINKS):
            if local is None:
                local = bool(_LOCAL_HOSTS.search(ctx.text)) and not _REMOTE.search(ctx.text)
            if local:
                continue
        return sink
    return None


def warned_about(ctx: Context, index: int) -> bool:
    """A prose line that names a control in order to warn about it (a security audit's checklist)."""
    if ctx.code:
        return False
    start = ctx.text.rfind("\n", 0, index) + 1
    end = ctx.text.find("\n", index)
    end = len(ctx.text) if end < 0 else end
    following = ctx.text.find("\n", end + 1)
    line = ctx.text[start:following if following > 0 and ctx.text[end + 1:end + 3].startswith("  ") else end]
    return bool(_WARNED.search(line))


# Words that call the quoted code an attack: said of it in its heading, the two lines before its fence, its own
# comments or (for a code span) its sentence.
_ATTACK_FRAME = re.compile(r"\b(?:attack(?:er|ers|er's|s)?|malicious|exploit(?:s|ed|ing|ation)?|payloads?|vulnerable|"
                           r"insecure|steal(?:s|ing)?|exfiltrat\w*|compromised?|backdoor(?:ed|s)?|proof of concept|"
                           r"red flags?|dangerous|risky|pwn\w*|don't do this|bad example)\b", re.I)
_FRAME_BEFORE = 300  # characters before a fence read for its caption


# A skill whose name says it teaches, reviews or detects attacks.
_SECURITY_NAME = re.compile(r"secur|scan|audit|vuln|threat|attack|exploit|pentest|malware|injection|guard|harden|"
                            r"red-?team|forensic|incident|ctf|owasp|sast|cve|review|safe|phish|detect|defen|protect|"
                            r"risk|trust|sandbox|abuse|hack|privacy|supply-?chain", re.I)


def security_skill(ctx: Context) -> bool:
    """A skill whose name says it teaches, reviews or detects attacks (`gha-security-review`, `injection-guard`)."""
    return bool(_SECURITY_NAME.search(ctx.skill_name))


def _title(text: str) -> str:
    """A Markdown file's first heading (a reference's title: "Pwn Request Attacks")."""
    first = _FIRST_HEADING.search(text)
    return first.group(1) if first else ""


_FIRST_HEADING = re.compile(r"^#{1,6}[ \t]+([^\n]{0,300})", re.M)


def attack_example(ctx: Context, index: int) -> bool:
    """Whether `index` is in a Markdown fence or code span that is captioned as an attack being taught, in a skill
    named for security work."""
    if not ctx.markdown or not _SECURITY_NAME.search(ctx.skill_name):
        return False
    text = ctx.text
    if ctx.in_fence(index):
        start = next(a for a, b in reversed(ctx.fences) if a <= index)
        caption_start = start
        for _ in range(2):  # the two non-blank lines before the fence
            caption_start = text.rfind("\n", 0, max(0, caption_start - 1)) + 1
            if not text[caption_start:start].strip():
                caption_start = text.rfind("\n", 0, max(0, caption_start - 1)) + 1
        caption = text[max(caption_start, start - _FRAME_BEFORE):start]
        line_end = text.find("\n", index)
        inside = text[start:line_end if line_end >= 0 else len(text)]
        comments = "\n".join(line for line in inside.split("\n") if line.lstrip().startswith(("#", "//", "<!--", "--")))
        framed = _ATTACK_FRAME.search(caption) or _ATTACK_FRAME.search(comments)
    elif ctx.in_code_span(index):  # its sentence, or the lead-in of the list or paragraph it is in
        framed = _ATTACK_FRAME.search(text, max(0, index - _FRAME_BEFORE, text.rfind("\n#", 0, index) + 1), index)
    else:
        return False
    if not framed and not _ATTACK_FRAME.search(ctx.heading(index)) and not _ATTACK_FRAME.search(_title(text)):
        return False
    return not ctx.lured(index)


# Asking the user before using a flag: Claude Code's AskUserQuestion tool, or the words.
_ASK_USER = re.compile(r"AskUserQuestion|\bask (?:the user|them|whether|if)\b|\bwith the user's (?:consent|permission|"
                       r"approval)|\bif the user (?:agrees|approves|chooses|opts in)|\bconfirm with the user\b", re.I)


def user_chooses(ctx: Context, flag: str) -> bool:
    """Whether a prose line of the file both names `flag` and asks the user about it: the skill offers the switch
    and the user decides (every mention in that file then follows the answer)."""
    at = ctx.text.find(flag)
    while at >= 0:
        if _ASK_USER.search(ctx.line_at(at)):
            return True
        at = ctx.text.find(flag, at + len(flag))
    return False


def known_vendor_url(command: str) -> bool:
    """Every address in `command` is HTTPS on a `VENDOR_HOSTS` host itself (`layout.on_listed_host`) or on a known
    publisher's own registered domain (`vendor.publisher_host`: `proton.me`, `release.solana.com`): the vendor's
    documented one-line install, shown to the reader. A host the skill only declares as its homepage is not enough
    here (anyone can declare one): that stays a warning."""
    urls = _URL.findall(command)
    return bool(urls) and all(url.lower().startswith("https://") and
                              (layout.on_listed_host(url, VENDOR_HOSTS) or scan_vendor.publisher_host(url))
                              for url in urls)


# Behaviour rules a security guide may quote in a captioned fence to teach the attack (warnings there, not blocks).
TAUGHT_RULES = frozenset({"security-pipe-to-shell", "security-download-exec", "security-exfiltration",
                           "security-persistence", "security-obfuscated-exec", "security-reverse-shell",
                           "security-credential-path"})


# Where a hidden note says where its text came from or under which licence: attribution, which gives no orders.
_ATTRIBUTION = re.compile(r"\s*(?:source|sources|based on|adapted|reference material|licen[cs]e|licensed|copyright|\(c\)|"
                          r"\u00a9|author|authors|written by|generated|auto-generated|spdx|originally|credits?|"
                          r"derived from|inspired by|forked from|ported from|taken from|translated from|todo|fixme|note to self|"
                          r"draft|wip)\b", re.I)


# A marker for tools or templates: up to three words in capitals (`FILEMAP:BEGIN`, `BRANDING`), or a formatter's
# or linter's directive (`prettier-ignore`, `markdownlint-disable MD013`, `omit in toc`).
_MARKER = re.compile(r"\s*(?:[A-Z0-9_:./-]+(?:[ \t]+[A-Z0-9_:./-]+){0,2}|(?i:prettier|markdownlint|textlint|vale|cspell|"
                     r"eslint|toc|omit in toc|end ?toc)\b[\w:. -]{0,60})\s*\Z")


def inert_hidden(inner: str) -> bool:
    """Hidden text that cannot steer an agent: a marker of a few words and no address (`FILEMAP:BEGIN`,
    `prettier-ignore`, `BRANDING`), a short attribution or licence note that gives no orders, or a maintainer's
    note on how the file is made ("To regenerate this table, run ./scripts/gen_table.sh", "Generated by
    terraform-docs. Do not edit by hand")."""
    return bool(_MARKER.match(inner)) or (len(inner) <= 600 and bool(_ATTRIBUTION.match(inner))) or \
        (len(inner) <= 300 and bool(_MAINTAINER_NOTE.match(inner)) and not _NOTE_REACHES.search(inner))


# A note to whoever edits the file: how it is generated, regenerated or kept in sync.
_MAINTAINER_NOTE = re.compile(r"\s*(?:to (?:regenerate|rebuild|refresh|update) (?:this|the)\b|(?:this (?:file|section|"
                              r"table|list|block) (?:is|was) )?(?:auto-?)?generated (?:by|from|with)\b|do not edit|"
                              r"don't edit|keep (?:this|it|in sync)\b|edit (?:\S+ )?instead\b|maintainers?:|"
                              r"last (?:updated|reviewed)\b|(?:begin|end|start|stop)[ _-](?:generated|auto|tf_docs)\b)",
                              re.I)
# What such a note may not mention: an address, a pipe into a shell, secrets, or the agent's own instructions.
_NOTE_REACHES = re.compile(r"://|\|\s*\w*sh\b|\b(?:curl|wget|iex|secret|token|password|credential|api[_ -]?key|"
                           r"ignore|disregard|override|forget|pretend|system prompt|assistant|agent|model|claude)\b|"
                           r"\.ssh\b|\.env\b|\.aws\b", re.I)


# A line that names the invisible characters it shows (a guide to Unicode smuggling quoting an example).
_NAMES_INVISIBLE = re.compile(r"zero[- ]width|invisible|\bU\+(?:200[B-F]|20[6-6][0-9A-F]|FEFF|E00[0-7][0-9A-F])\b|"
                              r"\bZW(?:SP|J|NJ)\b|bidi|homoglyph", re.I)


def demonstrated(text: str, index: int) -> bool:
    """The character sits inside quotation marks or a code span on a line that names such characters: a teaching
    example ("ig<U+200B>nore" with a zero-width space), not text hidden from the reader."""
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    line = text[start:end if end >= 0 else len(text)]
    before = text[start:index]
    inside = before.count('"') % 2 == 1 or before.count("`") % 2 == 1 or \
        before.count("\u201c") > before.count("\u201d")
    return inside and bool(_NAMES_INVISIBLE.search(line))


# Right before a credential path: an option or setting that hands the file to a tool (which then logs in with it).
_AS_OPTION = re.compile(r"(?:\s-i|\s-[Ii]dentityFile|--(?!upload|data|form|post|output)[\w-]*(?:file|config|key|"
                        r"identity|homedir|cert)|\b(?:key_filename|identity_file|keyfile|key_file|kubeconfig|homedir)|"
                        r"\b(?:AWS_SHARED_CREDENTIALS_FILE|AWS_CONFIG_FILE|KUBECONFIG|GNUPGHOME|NETRC|DOCKER_CONFIG|"
                        r"GOOGLE_APPLICATION_CREDENTIALS|NPM_CONFIG_USERCONFIG|PIP_CONFIG_FILE))[ \t]*[= ]?[ \t]*[\"']?"
                        r"(?:\$\{?HOME\}?|~|\$env:USERPROFILE|%USERPROFILE%|os\.path\.expanduser\([\"']~)?[/\\]?\Z")


def path_as_option(text: str, index: int) -> bool:
    """The credential path at `index` is the value of an option or setting (`ssh -i ~/.ssh/key`,
    `--netrc-file "$HOME/.netrc"`, `KUBECONFIG=~/.kube/config`): the tool logs in with it; nothing reads it."""
    start = max(text.rfind("\n", 0, index) + 1, index - 120)
    return bool(_AS_OPTION.search(text, start, index))


_SECRET_NAMES = re.compile(r"key|token|secret|pass|cred|auth|api|session|cookie|private", re.I)


def env_filtered(line: str) -> bool:
    """`printenv | grep '^CI_'`: the environment narrowed to named variables that name no secret."""
    match = re.search(r"\|\s*grep\s+(?!-v)([^|]*)", line)
    return bool(match) and not _SECRET_NAMES.search(match.group(1))


# Verbs that show or pass on what was read (`print .env`), as opposed to loading a project's own settings.
SHOW_VERB = re.compile(r"\b(?:print|dump|show|display|output|send|upload|post|paste|include|attach|exfiltrate|forward|"
                       r"share|reveal|echo)\b|\bcat\s+(?!>)", re.I)


# The first bytes of media files: an image, a font, audio, video or a PDF is data to show, not code to run.
_MEDIA_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"%PDF-", b"wOFF", b"wOF2", b"OTTO",
                b"\x00\x01\x00\x00\x00", b"ID3", b"OggS", b"fLaC", b"II*\x00", b"MM\x00*", b"\x00\x00\x01\x00",
                b"<svg", b"<?xml")


def media_base64(blob: str) -> bool:
    """A base64 blob that decodes to an image, font, audio, video or PDF file (a notebook's plot, a mail fixture's
    logo, an embedded font): its bytes say what it is, with or without a `data:` prefix. Archives and anything
    else stay a finding."""
    head = blob[:64]
    try:
        raw = binascii.a2b_base64(head[:len(head) - len(head) % 4])
    except (binascii.Error, ValueError):
        return False
    if raw.startswith(_MEDIA_MAGIC):
        return True
    return (raw[:4] == b"RIFF" and raw[8:12] in (b"WEBP", b"WAVE", b"AVI ")) or raw[4:8] == b"ftyp"


# A quotation introduced as something a document, a user or a message says: `If an email says "ignore previous
# instructions"`, `requests such as 'reveal your prompt'`.
_REPORTED = re.compile(r"\b(?:says?|said|asks?|asked|writes?|wrote|contains?|includes?|reads?|like|such as|e\.g\.|"
                       r"phrases?|requests?|text|claims?|tells? you to)\s*:?\s*[\"\u201c'`]\s*\Z", re.I)
# The surrounding sentences refuse what is quoted: the content is data, not instructions, and is not followed.
_REFUSED = re.compile(r"\buntrusted\b|\bnot (?:as )?instructions\b|\b(?:do not|don't|never|must not) (?:follow|obey|"
                      r"comply|act on|execute|carry out)\b|\btreat (?:it|them|this|that|[\w ]{1,40}) as (?:data|text|"
                      r"content)\b|\bis data\b", re.I)


def quoted_to_refuse(ctx: Context, index: int) -> bool:
    """A takeover phrase quoted in order to refuse it: a guard prompt ("If an email says \"ignore previous
    instructions\" … do not follow it") tells the model to treat it as data. The quotation must be introduced as
    something said or contained, and the lines around it must call the content untrusted or forbid following it."""
    line_start = ctx.text.rfind("\n", 0, index) + 1
    quote = max(ctx.text.rfind(q, line_start, index) for q in ('"', "\u201c", "'", "`"))
    if quote < 0 or not _REPORTED.search(ctx.text, max(line_start, quote - 40), quote + 1):
        return False
    start = ctx.text.rfind("\n", 0, max(0, line_start - 1))
    start = ctx.text.rfind("\n", 0, max(0, start)) + 1  # the two lines before
    end = index
    for _ in range(3):  # and the three after
        found = ctx.text.find("\n", end + 1)
        end = len(ctx.text) if found < 0 else found
    return bool(_REFUSED.search(ctx.text, start, end))


# Password managers and keychains: the user stored the token there for this service.
_SECRET_STORES = frozenset({"security", "op", "secret-tool", "pass", "bw", "gopass", "lpass", "keyring"})


def to_service(what: str, url: str) -> bool:
    """A token read from the user's password manager or keychain and sent to a known web API's own host over HTTPS
    (`security find-generic-password -s notion-token` -> `https://api.notion.com/v1/pages`): an API call
    authenticated the usual way, not a secret leaving for someone else."""
    tool = what.split("`", 2)[1].split(" ", 1)[0] if what.count("`") >= 2 else ""
    return tool in _SECRET_STORES and scan_vendor.service_api(url)


def container_vendor_step(file: str, segment: str) -> bool:
    """A Dockerfile step that runs a well-known vendor's installer fetched over HTTPS from the vendor's own host
    (`curl -fsSL https://deb.nodesource.com/setup_20.x -o /tmp/s.sh && bash /tmp/s.sh`): it runs inside the image
    being built, the vendor's documented way, not on the user's machine."""
    name = file.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return (name.startswith("dockerfile") or name.endswith((".dockerfile", "containerfile"))) and \
        known_vendor_url(segment)


# What a service unit or launch agent starts: `ExecStart=…`, launchd's `Program` or first `ProgramArguments` string.
_JOB_PROGRAM = re.compile(r"^[ \t]*ExecStart=[-@+!]*[ \t]*([^\s]+)|<key>Program(?:Arguments)?</key>\s*(?:<array>\s*)?"
                          r"<string>([^<\s]+)", re.M)
# Where installed programs live: package managers' and the user's own bin folders, and macOS applications.
_INSTALLED = re.compile(r"(?:/usr(?:/local)?/s?bin/|/bin/|/opt/homebrew/bin/|/opt/[\w.-]+/bin/|/Applications/|"
                        r"(?:~|%h|\$HOME|\$\{HOME\})/(?:\.local/bin|bin|\.cargo/bin|go/bin)/)(?!\.)[\w.+-]+\Z")


def installed_program_job(chunk: str) -> bool:
    """A user service or launch agent whose every program is an installed one (`ExecStart=%h/.local/bin/notes-server`,
    `<string>/usr/local/bin/restic</string>`): the user's own program started at login, which the skill documents,
    as a documented crontab line is. A program in a temporary, hidden or skill-written place is not."""
    programs = [a or b for a, b in _JOB_PROGRAM.findall(chunk)]
    return bool(programs) and all(_INSTALLED.match(p) and "/tmp/" not in p for p in programs)


# A command that runs what follows inside a container or a dev container (not on the user's machine).
_IN_CONTAINER = re.compile(r"\b(?:docker|podman|nerdctl)\s+(?:container\s+)?(?:run|exec)\b|\bdevcontainer\s+exec\b|"
                           r"\bkubectl\s+exec\b|\bdocker\s+compose\s+(?:run|exec)\b")


def in_container(ctx: Context, index: int) -> bool:
    """The flag at `index` is an argument of a command run inside a container (`devcontainer exec … claude -p …
    --dangerously-skip-permissions`, `docker run … --yolo`): the agent runs unprompted in an isolated box, the
    way its vendor documents for sandboxes. Read on the command's own line and the lines it continues with a backslash."""
    start = ctx.text.rfind("\n", 0, index) + 1
    while start > 1 and ctx.text[:start - 1].rstrip(" \t").endswith("\\"):
        start = ctx.text.rfind("\n", 0, start - 1) + 1
    return bool(_IN_CONTAINER.search(ctx.text, start, index))


_SGR = re.compile("\x1b\\[([0-9;]{0,40})m")
# Select Graphic Rendition parameters that only set the text's own look: reset, bold, dim, italic, underline, and
# foreground colours (basic, bright, 256 and true colour). Background colours (a foreground can match them), conceal
# (8), blink and reverse video can hide text or draw over it: those stay findings, as do cursor moves and OSC.
_SHOWN = frozenset({"", "0", "1", "2", "3", "4", "21", "22", "23", "24", "39", *map(str, range(30, 38)),
                    *map(str, range(90, 98))})


def colour_escape(text: str, index: int) -> bool:
    """The control character at `index` starts an ANSI colour escape that hides nothing (`ESC[1m`, `ESC[31m`,
    `ESC[38;5;208m`, `ESC[0m`): a captured terminal run kept with its colours shows the same words under `cat`."""
    match = _SGR.match(text, index)
    if match is None:
        return False
    params = match.group(1).split(";")
    k = 0
    while k < len(params):
        if params[k] == "38" and k + 1 < len(params) and params[k + 1] in ("5", "2"):
            k += 3 if params[k + 1] == "5" else 5
            continue
        if params[k] not in _SHOWN:
            return False
        k += 1
    return True


# Words a split hides from keyword filters: orders to the agent, commands, secrets.
_FILTERED_WORDS = re.compile(r"ignor|disregard|instruct|system|prompt|overrid|forget|previous|curl|wget|bash|eval|"
                             r"exec|passw|token|secret|ssh|upload|send|post|http|delete|sudo|admin|confirm|assistant|"
                             r"agent|jailbreak|hidden|reveal|api|key|env|shell|run|install|download", re.I)


def harmless_split(text: str, index: int, why: str) -> bool:
    """One invisible character at the camel-case joint of an ordinary name (`Java<U+200B>Script`, a line-break hint
    a web editor left, copied with the text): the name, joined again, is nothing a keyword filter looks for, so a
    warning (the reviewer still cannot see it), not a block. A split inside a run of small letters (`te<U+200B>sts`)
    or of "ignore", "curl" or "token" is the smuggling trick and stays an error."""
    if not why.startswith("splits a word") or not (0 < index < len(text) - 1 and text[index - 1].islower() and
                                                   text[index + 1].isupper()):
        return False  # only at a camel-case joint, where web editors break long names; `te<U+200B>sts` is a trick
    start = index
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "\u200b\u200c\u200d\u2060\ufeff\u00ad"):
        start -= 1
    end = index + 1
    while end < len(text) and (text[end].isalnum() or text[end] in "\u200b\u200c\u200d\u2060\ufeff\u00ad"):
        end += 1
    word = "".join(c for c in text[start:end] if c.isalnum())
    return not _FILTERED_WORDS.search(word)


_GO_RUN = re.compile(r"\A(go\s+run\s+)([\w.-]+\.[a-z]{2,}/\S+@\S+)", re.I)


def module_as_url(command: str) -> str:
    """`go run golang.org/x/tools/cmd/stringer@v0.24.0` with its module path written as the HTTPS address it is
    fetched from, so the vendor judgement reads its host like any other download's (`golang.org` is a publisher's;
    `evil.invalid/x@v1` is not). Other commands are returned unchanged."""
    match = _GO_RUN.match(command)
    return f"{match.group(1)}https://{match.group(2)}{command[match.end():]}" if match else command


# `ssh host '… >> ~/.ssh/authorized_keys' < ~/.ssh/id_ed25519.pub`: the user's own public key, appended on the server.
_OWN_KEY_TO_SERVER = re.compile(r"\bssh\s+(?:-\w+\s+(?:\S+\s+)?)*[\w.@-]+\s+[\"'][^\"'\n]*authorized_keys[^\"'\n]*[\"']\s*<\s*"
                                r"(?:~|\$HOME|\$\{HOME\})/\.ssh/[\w.-]+\.pub\s*\Z")
_REMOTE_COMMAND = re.compile(r"\bssh\s+(?:-\w+\s+(?:\S+\s+)?)*[\w.@-]+\s+[\"'][^\"'\n]*authorized_keys")
_APPENDS = re.compile(r">>|\btee\b|[\"']a[\"']|Add-Content|append", re.I)


def key_not_added_here(line: str, chunk: str) -> bool:
    """`authorized_keys` on this line adds no key to this machine: nothing around it appends, or the line is a
    command `ssh` runs on a server and every append around it is the user's own public key (`~/.ssh/*.pub`) sent
    there (what `ssh-copy-id` does: it lets the user log in to their server, not anyone into this machine)."""
    appends = [row for row in chunk.split("\n") if _APPENDS.search(row)]
    if not appends:
        return True
    return bool(_REMOTE_COMMAND.search(line)) and \
        all(_OWN_KEY_TO_SERVER.search(row.strip()) for row in appends if "authorized_keys" in row) and \
        all("authorized_keys" in row or not re.search(r"\.ssh\b", row) for row in appends)


# A game's or a lesson's content kept back for a while: the answer until the user has tried.
_HELD_BACK = re.compile(r"\b(?:the |which |any |a )?(?:answers?|solutions?|score|correct (?:word|meaning|option)|"
                        r"words? (?:are|is) coming|next (?:question|word|card|clue)|spoilers?|ending|hints?|"
                        r"punchline|secret word|card)\b[^.\n]{0,60}\b(?:before|until|till|unless)\b", re.I)


def withheld_until(sentence: str) -> bool:
    """"Do not tell the user the answer before they have tried": a quiz or a game keeps its answer, score or next
    card back until the right moment. It hides nothing the skill does, so it is no concealment."""
    return bool(_HELD_BACK.search(sentence))


_ZERO_WIDTH = "\u200b\u200c\u200d"


def _ideograph(char: str) -> bool:
    code = ord(char)
    return 0x3400 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or 0x20000 <= code <= 0x3FFFF


def native_mark(text: str, index: int) -> bool:
    """An invisible character the way a script is written, alone between two letters (or marks) of it: a zero-width space
    marking a word break in Thai, Lao, Khmer, Burmese or Japanese, a non-joiner or joiner inside a Persian or
    Devanagari word (letters, not ASCII, on both sides), or one ideographic variation selector (U+E0100..E01EF)
    right after a CJK ideograph (`葛` + VS17, a place name's registered glyph). A run, a mark beside ASCII or a
    selector after anything else stays a finding."""
    char = text[index]
    before = text[index - 1] if index > 0 else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    if "\U000e0100" <= char <= "\U000e01ef":
        return bool(before) and _ideograph(before) and not ("\U000e0100" <= after <= "\U000e01ef")
    return char in _ZERO_WIDTH and bool(before) and bool(after) and not before.isascii() and not after.isascii() and \
        unicodedata.category(before)[0] in "LM" and unicodedata.category(after)[0] in "LM"


# A clause that forbids: from "never", "do not" … up to the end of the clause.
_FORBIDDING = re.compile(r"\b(?:never|do not|don't|must not|should not|shouldn't)\s+(?:paste|commit|include|put|share|"
                         r"expose|hard-?code|log|print|store|write|leak|check in|add|use real)\b[^.;,:\n]*", re.I)


def unforbidden(inner: str) -> str:
    """Hidden text with its forbidding clauses blanked ("never paste a real secret key into the examples"): a
    maintainer's note that keeps secrets out names them only to forbid them. What is left is what it asks for.
    Only verbs that keep a secret out of the text are read as such; a note with an address is left whole."""
    return inner if "://" in inner else _FORBIDDING.sub(" ", inner)
