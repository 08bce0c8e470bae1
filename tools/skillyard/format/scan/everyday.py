"""What honest skills do every day that reads like an attack, judged by its class (issue 34, item 4): media and
source maps in base64, colour escapes in a captured run, marks a script is written with, a service for an installed
program, an agent run inside a container, the user's own key sent to their server, a quiz keeping its answer, a
guard prompt quoting a takeover to refuse it, a maintainer's note that forbids pasting secrets, `go run` of a
module and a Dockerfile step judged by their host, API clients calling the API their keys were issued for, and
a well-known vendor's documented install. `precision` re-exports every name; the rules call them there."""

from __future__ import annotations

import binascii
import re
import unicodedata

from skillyard.format import safety
from skillyard.format.scan import layout
from skillyard.format.scan import phrases as ph
from skillyard.format.scan import vendor as scan_vendor
from skillyard.format.scan.context import _URL, ERROR, VENDOR_HOSTS, WARNING, Context


def known_vendor_url(command: str) -> bool:
    """Every address in `command` is HTTPS on a `VENDOR_HOSTS` host itself (`layout.on_listed_host`) or on a known
    publisher's own registered domain (`vendor.publisher_host`: `proton.me`, `release.solana.com`): the vendor's
    documented one-line install, shown to the reader. A host the skill only declares as its homepage is not enough
    here (anyone can declare one): that stays a warning."""
    urls = _URL.findall(command)
    return bool(urls) and all(url.lower().startswith("https://") and
                              (layout.on_listed_host(url, VENDOR_HOSTS) or scan_vendor.publisher_host(url))
                              for url in urls)


# The first bytes of media files: an image, a font, audio, video or a PDF is data to show, not code to run.
_MEDIA_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"%PDF-", b"wOFF", b"wOF2", b"OTTO",
                b"\x00\x01\x00\x00\x00", b"ID3", b"OggS", b"fLaC", b"II*\x00", b"MM\x00*", b"\x00\x00\x01\x00",
                b"<svg", b"<?xml")


def media_base64(blob: str) -> bool:
    """A base64 blob that decodes to an image, font, audio, video or PDF file (a notebook's plot, a mail fixture's
    logo, an embedded font) or to a source map (`//# sourceMappingURL=data:…;base64,` after a bundle): its bytes say
    what it is, with or without a `data:` prefix. Archives and anything else stay a finding."""
    head = blob[:64]
    try:
        raw = binascii.a2b_base64(head[:len(head) - len(head) % 4])
    except (binascii.Error, ValueError):
        return False
    if raw.startswith(_MEDIA_MAGIC) or raw.replace(b" ", b"").startswith(b'{"version":3,'):
        return True  # a media file, or a bundler's inline source map (JSON that maps lines back to the source)
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
    """A token read from the user's password manager or keychain, or from the project's own `.env`, and sent to a
    known web API's own host over HTTPS (`security find-generic-password -s notion-token` ->
    `https://api.notion.com/v1/pages`): an API call authenticated the usual way, not a secret leaving for someone
    else."""
    tool = what.split("`", 2)[1].split(" ", 1)[0] if what.count("`") >= 2 else ""
    project_env = tool.strip("\"'") in (".env", "./.env", ".env.local", "./.env.local")  # the project's own settings
    return (tool in _SECRET_STORES or project_env) and scan_vendor.service_api(url)


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
    return bool(programs) and all(_INSTALLED.match(p) and "/tmp/" not in p for p in programs)  # noqa: S108 (a path test)


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
# `cat ~/.ssh/id_ed25519.pub | ssh "$host" '… >> ~/.ssh/authorized_keys'`: the same, piped (the host may be a variable).
_HOST = r"(?:[\w.@-]+|\"[\w.@${}-]+\"|\$\{?\w+\}?)"
_OWN_PUB = r"[\"']?(?:~|\$HOME|\$\{HOME\})/\.ssh/[\w.-]+\.pub[\"']?"
_OWN_KEY_TO_SERVER = re.compile(r"\bssh\s+(?:-\w+\s+(?:\S+\s+)?)*" + _HOST + r"\s+[\"'][^\"'\n]*authorized_keys[^\"'\n]*"
                                r"[\"']\s*<\s*" + _OWN_PUB + r"\s*\Z|\A(?:cat|type|Get-Content)\s+" + _OWN_PUB +
                                r"\s*\|\s*ssh\s+(?:-\w+\s+(?:\S+\s+)?)*" + _HOST + r"\s+[\"'][^\"'\n]*authorized_keys[^\"'\n]*"
                                r"[\"']\s*\Z")
_REMOTE_COMMAND = re.compile(r"\bssh\s+(?:-\w+\s+(?:\S+\s+)?)*" + _HOST + r"\s+[\"'][^\"'\n]*authorized_keys")
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
_BIDI_MARKS = "\u200e\u200f\u061c"  # LRM, RLM, ALM
_EMBEDDINGS = "\u202a\u202b\u202c"  # LRE, RLE and their PDF (never the overrides LRO/RLO, which reverse letters)
_ISOLATES = "\u2066\u2067\u2068\u2069"  # LRI, RLI, FSI and their PDI
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")


def _rtl_typography(text: str, index: int) -> bool:
    """A direction mark, or a balanced embedding or isolate, on a line written in a right-to-left script (Hebrew,
    Arabic, Persian, Urdu …) with no override on it: how a bidi-aware editor keeps `Acme Cloud` or `v2.4.1` in
    order inside Arabic text. Reordering that could hide text (an override, an unbalanced run, a line with no
    right-to-left letters: Trojan Source) stays a finding."""
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    line = text[start:end if end >= 0 else len(text)]
    if not any(unicodedata.category(m.group())[0] == "L" for m in _RTL.finditer(line)) or \
            "\u202d" in line or "\u202e" in line:  # letters: U+061C and the other marks in the blocks are no script
        return False
    return sum(line.count(c) for c in "\u202a\u202b") == line.count("\u202c") and \
        sum(line.count(c) for c in "\u2066\u2067\u2068") == line.count("\u2069")


# A neighbour that is itself invisible (Khmer's inherent vowels U+17B4/U+17B5 are marks of the script) makes no
# word of the script: a zero-width space between two of them hides as much as anywhere else.
_INVISIBLE = safety.INVISIBLE


def _ideograph(char: str) -> bool:
    code = ord(char)
    return 0x3400 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or 0x20000 <= code <= 0x3FFFF


def native_mark(text: str, index: int) -> bool:
    """An invisible character the way a script is written, alone between two letters (or marks) of it: a zero-width space
    marking a word break in Thai, Lao, Khmer, Burmese or Japanese, a non-joiner or joiner inside a Persian or
    Devanagari word (letters, not ASCII, on both sides), or one ideographic variation selector (U+E0100..E01EF)
    right after a CJK ideograph (`葛` + VS17, a place name's registered glyph), or right-to-left typography
    (`_rtl_typography`). A run, a mark beside ASCII or a selector after anything else stays a finding."""
    char = text[index]
    before = text[index - 1] if index > 0 else ""
    after = text[index + 1] if index + 1 < len(text) else ""
    if char in _BIDI_MARKS or char in _EMBEDDINGS or char in _ISOLATES:
        return _rtl_typography(text, index)
    if "\U000e0100" <= char <= "\U000e01ef":
        return bool(before) and _ideograph(before) and not ("\U000e0100" <= after <= "\U000e01ef")
    return char in _ZERO_WIDTH and bool(before) and bool(after) and _joining_script(before) and \
        _joining_script(after) and unicodedata.category(before)[0] in "LM" and \
        unicodedata.category(after)[0] in "LM" and not _INVISIBLE.match(before) and not _INVISIBLE.match(after)


# Scripts written with zero-width breaks, non-joiners or joiners: Hebrew to N'Ko, the Indic scripts, Thai, Lao,
# Tibetan, Myanmar, Khmer, Mongolian, CJK and Japanese kana, Hangul, Arabic presentation forms. Never Latin, Greek
# or Cyrillic: there a zero-width character inside a word only splits it.
_JOINING_SCRIPTS = ((0x0590, 0x0DFF), (0x0E00, 0x109F), (0x1780, 0x18AF), (0x3000, 0x9FFF), (0xAC00, 0xD7AF),
                    (0xF900, 0xFAFF), (0xFB1D, 0xFDFF), (0xFE70, 0xFEFF), (0x20000, 0x3FFFF))


def _joining_script(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _JOINING_SCRIPTS)


# A clause that forbids: from "never", "do not" … up to the end of the clause.
_FORBIDDING = re.compile(r"\b(?:never|do not|don't|must not|should not|shouldn't)\s+(?:paste|commit|include|put|share|"
                         r"expose|hard-?code|log|print|store|write|leak|check in|add|use real)\b[^.;,:\n]*", re.I)


def unforbidden(inner: str) -> str:
    """Hidden text with its forbidding clauses blanked ("never paste a real secret key into the examples"): a
    maintainer's note that keeps secrets out names them only to forbid them. What is left is what it asks for.
    Only verbs that keep a secret out of the text are read as such; a note with an address is left whole."""
    return inner if "://" in inner else _FORBIDDING.sub(" ", inner)


# What an API client must not do besides calling its API: read the user's home secrets or the whole environment.
_BEYOND_PROJECT = re.compile(r"~/|\$HOME\b|\$\{HOME\}|expanduser|Path\.home\(|os\.environ\s*\)|environ\.items\(|"
                             r"environ\.copy\(|\*\*os\.environ|\bprintenv\b|\benv\s*\||process\.env\s*\)|"
                             r"\.\.\.process\.env\b|homedir\(", re.I)


def api_client(text: str) -> bool:
    """A script whose every address is HTTPS on a known web API's own host (`vendor.service_api`) and that reads no
    secret beyond the project (no home-folder credential, not the whole environment): the project's `.env` keys it
    loads (`dotenv_values(".env")`) go to the API they were issued for."""
    urls = _URL.findall(text)
    return bool(urls) and all(scan_vendor.service_api(url) for url in urls) and not _BEYOND_PROJECT.search(text)


# What a URL placeholder may name and still only be an API key: never the conversation, a file or a command's output.
_KEY_ONLY = re.compile(r"(?:\$\{?|\{\{?\s*)(?:[a-z_.]*(?:key|token)[a-z_]*|[A-Z_]*(?:KEY|TOKEN)[A-Z_]*)\s*\}?\}?", re.I)
_OTHER_PLACEHOLDER = re.compile(r"\$\(|\{\{?\s*(?:env|secrets?)\b|conversation|history|chat|context|memory|"
                                r"secret|password|pass\b|cred|session", re.I)


def secret_url_severity(link: str):
    """A Markdown image or link whose address carries an API key placeholder to that API's own host over HTTPS
    (`https://maps.googleapis.com/maps/api/staticmap?…&key={{GOOGLE_MAPS_API_KEY}}`, `…/weather?appid={api_key}`):
    the key goes to the service that issued it, the way its docs say, so a warning (a header is safer). Any other
    placeholder (the conversation, a secret, a command's output) or any other host is an error."""
    url = _URL.search(link)
    if url is None or not url.group().lower().startswith("https://"):
        return ERROR
    address = url.group()
    if not (scan_vendor.service_api(address) or scan_vendor.publisher_host(address)) or \
            _OTHER_PLACEHOLDER.search(_KEY_ONLY.sub(" ", address)) or not _KEY_ONLY.search(address):
        return ERROR
    return WARNING


# A turn of another role, in the same style, at the start of a line: `USER:`, `[USER]`, `Human:`, `<|user|>`.
_OTHER_TURN = re.compile(r"^[ \t>*_-]{0,4}(?:\[(?:USER|HUMAN|CUSTOMER)\]|(?:USER|HUMAN|CUSTOMER)(?: PROMPT| MESSAGE)?\s*:|"
                         r"<\|?(?:user|human)\|?>|<\|im_start\|>\s*user)", re.I | re.M)
_ROLE_LINE = re.compile(r"^[ \t>*_-]{0,4}(?:\[(?:SYSTEM|ASSISTANT|AI|BOT)\]|(?:SYSTEM|ASSISTANT|AI|BOT)(?: PROMPT| MESSAGE)?"
                        r"\s*:|<\|?(?:system|assistant)\|?>|<\|im_start\|>\s*(?:system|assistant))", re.I | re.M)


def dialogue(ctx: Context, index: int) -> bool:
    """The role marker at `index` opens a turn of a written-out conversation: a prompt template (`System: …` then
    `User: {ticket_text}`) or an exported chat log (`[SYSTEM] …`, `[USER] …`, `[ASSISTANT] …`). Its line starts
    with the marker and a user's turn in the same style is within a few lines: every role has its turn, so the
    text shows a conversation rather than pretending to be the system. Overrides and concealment inside it are
    still judged by their own rules."""
    line_start = ctx.text.rfind("\n", 0, index) + 1
    if not _ROLE_LINE.match(ctx.text, line_start):
        return False
    start, end = ctx.block(index, 8)
    return bool(_OTHER_TURN.search(ctx.text, max(0, start - 400), min(len(ctx.text), end + 400)))


_LIST_ITEM = re.compile(r"[ \t]{0,6}(?:[-*+]|\d{1,3}[.)])[ \t]+\S")


def item_span(ctx: Context, index: int, start: int, end: int) -> tuple[int, int]:
    """Where the action an instruction is about is looked for: a list item is its own instruction ("- run the
    formatter without asking", "- always ask before deleting"), so only its line (and the lines it continues)
    counts; anything else keeps the paragraph `start`..`end` it is given."""
    line_start = ctx.text.rfind("\n", 0, index) + 1
    if not _LIST_ITEM.match(ctx.text, line_start):
        return start, end
    stop = ctx.text.find("\n", index)
    while stop >= 0 and ctx.text.startswith(("  ", "\t"), stop + 1) and not _LIST_ITEM.match(ctx.text, stop + 1):
        stop = ctx.text.find("\n", stop + 1)  # an indented continuation of the same item
    return line_start, len(ctx.text) if stop < 0 else stop


_LOOPBACK_URL = re.compile(r"\A(?:https?://)?(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?(?:/|\Z)", re.I)


def loopback_url(url: str) -> bool:
    """A package index on this machine (`http://localhost:4873` for Verdaccio, `http://127.0.0.1:8080/simple/` for
    pypiserver): plain HTTP there crosses no network, so it is a non-default index (a warning), not an insecure one."""
    return bool(_LOOPBACK_URL.match(url.strip("'\"`")))


_SENTENCE_END = re.compile(r"(?<=[.!?\u3002\uff01\uff1f])\s+|\n[ \t]*(?:\n|(?=[-*+#>]|\d{1,3}[.)]))")  # a line break inside a paragraph is none
_CONFIRM_WORD = re.compile(r"confirm|approv|permission|consent|подтвержд|разрешени|согласи|確認|确认|許可|许可|同意|"
                           r"best(?:ä|ae)tig|zustimm|erlaubnis|confirmaci|confirma[cç]|autoriza|conferma|permesso", re.I)
# "(do) ask (the user) before/first", and the negations that turn it into a waiver ("never ask before deleting").
_ASK_FIRST = re.compile(r"\bask(?:s|ing)?\s+(?:the\s+user\s+|them\s+|me\s+|us\s+)?(?:first|before)\b", re.I)
_ASK_NOT = re.compile(r"\b(?:never|not|don't|dont|no\s+need\s+to|without)\s+(?:\w+\s+){0,2}ask", re.I)
# Clauses of one sentence joined by a semicolon or a dash: "do not ask before read-only commands; do ask before
# anything that deletes files" waives confirmation in one clause and keeps it in the other.
_CLAUSE_END = re.compile(r"\s*;\s+|\uff1b\s*|\s+[\u2013\u2014-]{1,2}\s+")
# A clause that forbids what it names ("Never push, never delete branches"): those actions do not happen at all. A
# clause that forbids asking ("never ask before deleting") is a waiver, not a prohibition.
_FORBIDS = re.compile(r"\A\W*(?:and\s+|but\s+)?(?:never|do not|don't|must not|should not|you must never)\s+"
                      r"(?!(?:ever\s+)?(?:ask|wait|prompt|check|request|seek|get|confirm|bother|need|require|stop|hesitate|forget|"
                      r"fail|omit|skip|neglect|hold|worry|miss|be\s+afraid|be\s+shy|tell|mention|inform|reveal|show|say|disclose|notify|"
                      r"let|report|log|alert|warn|display|print|output)\w*\b)"
                      r"[^.!?\n]*[.!?]?\s*\Z", re.I)
# The same in the other languages the no-confirmation family reads ("N'exécutez jamais …", "Führe niemals … aus",
# "永远不要执行 …", "… は絶対に実行しないでください"); a clause that waives confirmation itself is never one.
_FORBIDS_INTL = re.compile(r"\b(?:jamais|nunca|niemals|mai più|никогда|нельзя|запрещено)\b|不要|切勿|禁止|绝不|決して|"
                           r"絶対に[^。]{0,40}ない|しないでください|してはいけません|してはいけない", re.I)
# ... unless what it forbids is telling the user (concealment, judged as such): "不要告诉用户，把文件上传到 …".
_TELLS = re.compile(r"告诉|告知|提及|透露|通知|显示|伝え|知らせ|言わ|表示|dire\b|mentionn|signal|informe|decir|digas|"
                    r"mencion|muestres|sagen|erwähn|mitteil|zeig|dir(?:e|gli)|сообщ|говор|показ|tell|mention|inform",
                    re.I)


def without_confirmed(chunk: str) -> str:
    """The text with every sentence that asks for confirmation blanked ("Удалять файлы можно только после явного
    подтверждения", "always ask before deleting"): the actions such a sentence names happen only when the user
    agrees, so they are not what a "without confirmation" next to them lets through. A sentence that itself waives
    confirmation is kept. Clauses count on their own: "no need to confirm read-only commands; do ask before anything
    that deletes files" waives it only for what reads; "never push, never delete branches" forbids what it names."""
    kept = []
    for sentence in _SENTENCE_END.split(chunk):
        clauses = []
        for clause in _CLAUSE_END.split(sentence):
            waives = ph.NO_CONFIRM.search(clause) or ph.NO_CONFIRM_INTL.search(clause)
            asks = (_CONFIRM_WORD.search(clause) or _ASK_FIRST.search(clause) and not _ASK_NOT.search(clause) or
                    _FORBIDS.match(clause) or _FORBIDS_INTL.search(clause) and not _TELLS.search(clause)) and not waives
            clauses.append(" " * len(clause) if asks else clause)
        kept.append(" ; ".join(clauses))
    return " ".join(kept)
