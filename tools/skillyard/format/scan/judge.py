"""Static security findings over a skill's text files. They ship in registry.json so users see them too.

Nothing here runs or imports the skill's code: it only reads text. Every text file the registry publishes is scanned
in full (the package's file limit bounds it), so the checks are whole-text regular expressions behind C-speed
pre-checks (`in`, `bytes.translate`): no Python loop runs per character, only per match, and at most
`MAX_FINDINGS_PER_RULE` matches per rule and file become findings.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import accumulate, islice

from skillyard.format import safety
from skillyard.format.findings import Finding, Severity
from skillyard.format.scan import code_flows as scan_code
from skillyard.format.scan import context as scan_context
from skillyard.format.scan import emoji, searched  # noqa: F401  (searched: the patterns pattern_gate knows)
from skillyard.format.scan import exec_flows as scan_exec
from skillyard.format.scan import precision as scan_precision
from skillyard.format.scan import prose as scan_prose
from skillyard.format.scan import rules as scan_rules
from skillyard.format.scan.skill_level import scan_skill  # noqa: F401  (skill-level findings; package.load_skill calls it)

MAX_FINDINGS_PER_RULE = 20  # per file; the rest are counted in one summary finding
# A finding's digest covers the whole paragraph (up to the blank lines around it) that holds what it matched, at most
# this many characters beyond the match's own lines: a command that runs on past a message's cut is inside it.
DIGEST_CONTEXT = 16_000
_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")

# Raw HTML that a Markdown renderer drops: comments, processing instructions, CDATA and declarations. Unclosed, each
# runs to the end of the file (CommonMark: an HTML block that never closes swallows the rest of the document).
# `<!-->` and `<!--->` are complete empty comments.
HIDDEN_HTML = re.compile(r"<!--(?!-?>)(.*?)(?:-->|\Z)|<\?(.*?)(?:\?>|\Z)|<!\[CDATA\[(.*?)(?:\]\]>|\Z)|<![A-Za-z]([^>]*)(?:>|\Z)", re.S)
# Elements whose content a browser or GitHub's sanitiser never shows, and any element marked `hidden`.
HIDDEN_ELEMENT = re.compile(r"<(script|style|template|noscript|title)\b[^>]*>(.*?)(?:</\1\s*>|\Z)|"
                            r"<[A-Za-z][\w-]*\s[^<>]*?\bhidden\b[^<>]*>", re.S | re.I)
HIDDEN_COMMENT = re.compile(r"<!--(?!-?>)(.*?)(?:-->|\Z)", re.S)  # HTML files: only comments are hidden
# A link reference definition `[label]: destination "title"` is never rendered: `[//]: # (text)` and
# `[comment]: <> (text)` are the well-known "Markdown comments". Found by its `[`; the line is checked in Python.
_REF_DEF = re.compile(r"\[([^\[\]\n]{1,999})\]:")  # no `[` inside: each attempt stops at the next one
_REF_USE = re.compile(r"\[([^\[\]\n]{1,999})\]")
# reStructuredText: `.. text` that is not a directive (`.. name::`), target (`.. _x:`), footnote, citation or
# substitution is a comment, and so is an empty `..` followed by an indented block.
RST_COMMENT = re.compile(r"^\.\.(?:[ \t]+(?![_\[|]|[^\s:`]+::)\S|[ \t]*\n[ \t]+\S)", re.M)

PIPE_TO_SHELL = re.compile(
    r"\b(?:curl|wget|fetch|iwr|Invoke-WebRequest)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b|"
    r"\b(?:curl|wget)\b[^\n|]*\|\s*(?:sudo\s+)?python[0-9.]*\b|"
    r"\b(?:ba)?sh\s+<\(\s*(?:curl|wget)\b|\biex\s*\(\s*(?:New-Object|iwr|Invoke-WebRequest)"
)
BASE64_BLOB = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{200,}={0,2}")  # tried only where a run starts
# C0 and C1 controls other than tab, line feed, carriage return and form feed, and a carriage return that does not
# end a line: terminals act on them (escape sequences, overwriting a line), so `cat` shows a reviewer other text.
CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]|\r(?!\n)")
# Where PIPE_TO_SHELL can end: each starts with a literal, so the engine jumps between rare candidates instead of
# trying a word alternation at every character of a file full of Markdown tables.
_PIPE_ANCHOR = re.compile(r"\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k)?sh|python[0-9.]*)\b|<\(\s*(?:curl|wget)\b|"
                          r"iex\s*\(\s*(?:New-Object|iwr|Invoke-WebRequest)")
# Every PIPE_TO_SHELL match names one of these (it is case-sensitive): a file without any is skipped with `in`.
_DOWNLOADERS = ("curl", "wget", "fetch", "iwr", "Invoke-WebRequest", "New-Object")
# ... and each holds one of these as a whole word (`\b` around it), so a file whose words (lowered) include none
# is skipped without searching its text at all.
_PIPE_TOKENS = scan_context._words("curl", "wget", "fetch", "iwr", "invoke", "iex")
# A hidden element is one of these tags or carries `hidden`: ASCII text without any (lowered) has none.
_HIDDEN_ELEMENT_WORDS = (b"<script", b"<style", b"<template", b"<noscript", b"<title", b"hidden")
# Pre-checks as patterns that start with one literal character: the regex engine skips to each `<`, `]` or `|` in a
# tight C loop, several times faster than `in` with a two- or three-character needle (CPython's substring search
# can skip at most the needle's length).
_HTML_HIDDEN_HINT = re.compile(r"<[!?]")
_REF_DEF_HINT = re.compile(r"\]:")
_PIPE_BAR_HINT = re.compile(r"\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k)?sh|python[0-9.]*)\b")
_PIPE_PROCESS_HINT = re.compile(r"<\(")
_PIPE_IEX_HINT = re.compile(r"x\s*\(\s*(?:New-Object|iwr|Invoke-WebRequest)")  # `iex (…`, from its rarer letter
_ASCII = bytes(range(128))
_C1_UTF8 = re.compile(b"\xc2[\x80-\x9f]")
# One `bytes.translate` pass classes every byte: 2 for a C0 control CONTROL flags (or DEL), 1 for a base64
# character, 0 for the rest. A control is then a `memchr` away, and a base64 run of 200 a substring search.
_CONTROL_BYTE, _B64_BYTE = 2, 1
_BYTE_CLASS = bytes(_CONTROL_BYTE if (c < 32 and c not in (9, 10, 12, 13)) or c == 127
                    else _B64_BYTE if chr(c).isascii() and (chr(c).isalnum() or chr(c) in "+/") else 0
                    for c in range(256))
_B64_RUN = bytes([_B64_BYTE]) * 200
# Any invisible character, selectors included: a pre-check over the non-ASCII characters alone.
_INVISIBLE_SUSPECT = re.compile(f"[{safety.DEFAULT_IGNORABLE}{safety.BLANK_LOOKING}]")
_NOT_EMOJI_BASE = re.compile(f"[^{safety.EMOJI_BASE}]")

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd", ".mkdn", ".mdwn", ".mdx", ".mdc"})
HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml", ".svg"})
RST_SUFFIXES = frozenset({".rst", ".rest"})
# Files with these suffixes are text whatever their bytes: they must be UTF-8 and are always scanned. Any other file
# is text when git would show it as text (no NUL byte in its first 8,000 bytes), so it must be UTF-8 too.
TEXT_SUFFIXES = MARKDOWN_SUFFIXES | HTML_SUFFIXES | RST_SUFFIXES | {
    ".txt", ".text", ".py", ".pyi", ".sh", ".bash", ".zsh", ".fish", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx",
    ".rb", ".pl", ".php", ".ps1", ".psm1", ".bat", ".cmd", ".lua", ".r", ".go", ".rs", ".java", ".kt", ".swift",
    ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".sql", ".css", ".scss", ".vue", ".svelte", ".yaml", ".yml", ".json",
    ".jsonl", ".ndjson", ".toml", ".cfg", ".ini", ".conf", ".properties", ".env", ".xml", ".csv", ".tsv", ".tex",
    ".adoc", ".org", ".ipynb", ".graphql", ".proto", ".diff", ".patch", ".log", ".j2", ".jinja", ".tmpl",
}


def markup_of(rel: str) -> str | None:
    """Which renderer hides text in this file: "markdown", "html", "rst" or None (shown as it is)."""
    suffix = rel[rel.rfind("."):].lower() if "." in rel.rsplit("/", 1)[-1] else ""
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    if suffix in HTML_SUFFIXES:
        return "html"
    if suffix in RST_SUFFIXES:
        return "rst"
    return None


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _column(text: str, index: int) -> int:
    return index - text.rfind("\n", 0, index)


# The findings of the texts judged last, by (text, file, line offset, markup, skill-name class, declared homes): the
# same file shipped in several skills (a vendored reference, a copied script, a shared helper) is judged once per
# process. At most this many characters of text are held (the least recently judged go first).
SEEN_CHARS = 8 * 1024 * 1024
SEEN_MIN_CHARS = 2048  # shorter texts are judged every time
_seen: dict[tuple[str, str, int, str | None, bool, tuple[str, ...]], tuple[Finding, ...]] = {}
_held = [0]  # characters of text `_seen` holds


def name_class(skill_name: str) -> bool:
    """All a text's findings take from the skill's name: whether it names security work (`precision.security_skill`,
    read as `Context` keeps the name, lowered). Skills whose names fall in the same class share `_seen`'s entries, so
    a file shipped in several skills is judged once (keyed by the name itself, it never was).
    tests/format/test_scan_seen.py fails when a rule reads the name any other way."""
    return bool(scan_precision._SECURITY_NAME.search(skill_name.lower()))


def scan_text(text: str, file: str, *, line_offset: int = 0, is_markdown: bool = False,
              markup: str | None = None, raw: bytes | None = None, skill_name: str = "",
              homes: tuple[str, ...] = ()) -> list[Finding]:
    """Security findings for one file's text (see `_scan_text`); a text already judged with the same file name,
    offset, markup, class of skill name (`name_class`) and declared homes gets the same findings without being
    judged again (they depend on nothing else)."""
    markup = markup or ("markdown" if is_markdown else None)
    if len(text) < SEEN_MIN_CHARS:  # judged in less time than the look-up costs beside it
        return _scan_text(text, file, line_offset=line_offset, markup=markup, raw=raw, skill_name=skill_name,
                          homes=homes)
    key = (text, file, line_offset, markup, name_class(skill_name), homes)
    found = _seen.pop(key, None)
    if found is None:
        found = tuple(_scan_text(text, file, line_offset=line_offset, markup=markup, raw=raw, skill_name=skill_name,
                                 homes=homes))
        if len(text) > SEEN_CHARS:
            return list(found)
        _held[0] += len(text)
        while _held[0] > SEEN_CHARS:
            oldest = next(iter(_seen))
            _held[0] -= len(oldest[0])
            del _seen[oldest]
    _seen[key] = found  # the most recently judged last
    return list(found)


def _scan_text(text: str, file: str, *, line_offset: int = 0, is_markdown: bool = False,
               markup: str | None = None, raw: bytes | None = None, skill_name: str = "",
               homes: tuple[str, ...] = ()) -> list[Finding]:
    """Security findings for one file's text. `line_offset` maps body lines back to SKILL.md lines. `raw`, when
    given, must be the text's UTF-8 bytes (the file as read): the byte-level checks then skip encoding it again.
    `skill_name` names the skill (security guides are read by it); `homes`, the homepage and repository the skill
    declares (vendor.declared_homes), let an installer from the skill's own site count as the vendor's."""
    markup = markup or ("markdown" if is_markdown else None)
    found: list[Finding] = []
    counts: Counter[str] = Counter()

    def add(rule: str, severity: Severity, index: int, message, fix: str, end: int | None = None) -> None:
        """Record a finding; `message` may be a function of nothing, called only for the findings listed. Its
        digest is taken here, for every rule, from the text at `index` (to `end`, when the match spans more)."""
        counts[rule] += 1
        if counts[rule] <= MAX_FINDINGS_PER_RULE:
            message = message() if callable(message) else message
            inside = 0 <= index <= len(text)
            line = _line(text, index) + line_offset if inside else None  # never a guess
            found.append(Finding.of_match(rule, severity, message, fix, file, line, matched_paragraph(text, index, end))
                         if inside else Finding(rule, severity, message, fix, file, line))

    if text.startswith("\ufeff"):  # a byte-order mark at the very start is how some editors mark UTF-8
        text = " " + text[1:]
        raw = None
    if raw is None:
        raw = text.encode("utf-8", "surrogatepass")
    if not text.isascii():
        positions, total = _invisible_positions(text, raw)
        for index in positions:
            if scan_precision.native_mark(text, index):
                continue  # a Thai word break, a Persian non-joiner, a Japanese variant selector: how the script is written
            why = _smuggling(text, index)
            if why and scan_precision.demonstrated(text, index):
                add("security-invisible-unicode", Severity.WARNING, index,
                    f"Invisible character {safety.describe_char(text[index])} (column {_column(text, index)}) "
                    f"{why}, quoted to show it (its line names the trick): a reviewer still cannot see it.",
                    "Write the character as its code point (`U+200B`) instead.")
            elif why and not scan_precision.harmless_split(text, index, why):
                add("security-invisible-unicode", Severity.ERROR, index,
                    f"Invisible character {safety.describe_char(text[index])} (column {_column(text, index)}) "
                    f"{why}: it hides text from reviewers while models still read it.", "Delete the character.")
            else:
                add("security-invisible-unicode", Severity.WARNING, index,
                    f"Invisible character {safety.describe_char(text[index])} (column {_column(text, index)}): a "
                    "lone mark that hides nothing by itself, but a reviewer cannot see it.", "Delete the character.")
        counts["security-invisible-unicode"] += total - len(positions)
    classes = raw.translate(_BYTE_CLASS)
    if _CONTROL_BYTE in classes or (b"\r" in raw and raw.count(b"\r") != raw.count(b"\r\n")) or \
            (not text.isascii() and _C1_UTF8.search(raw)):  # C1 controls are two UTF-8 bytes, never ASCII
        matches = (m for m in CONTROL.finditer(text) if not scan_precision.colour_escape(text, m.start()))
        for match in islice(matches, MAX_FINDINGS_PER_RULE):
            add("security-control-character", Severity.ERROR, match.start(),
                f"Control character {safety.describe_char(match.group())} (column {_column(text, match.start())}): "
                "terminals act on it, so what a reviewer sees with `cat` differs from what the file says.",
                "Delete the character.")
        counts["security-control-character"] += sum(1 for _ in matches)
    ctx = scan_context.Context(text, file, markup, raw, skill_name, homes)
    if markup == "markdown":
        _markdown_hidden(ctx, add)
    elif markup == "html" and "<!--" in text:
        for match in HIDDEN_COMMENT.finditer(text):
            if match.group(1).strip() and not _hidden_order(match.group(1)) and \
                    not scan_precision.inert_hidden(match.group(1)):
                add("security-hidden-comment", Severity.WARNING, match.start(),
                    "An HTML comment hides text from rendered views while models still read it.",
                    "Remove the comment or make its text visible.", end=match.end())
    elif markup == "rst" and ".." in text:
        for match in RST_COMMENT.finditer(text):
            add("security-hidden-comment", Severity.WARNING, match.start(),
                "A reStructuredText comment (`.. text`) hides text from rendered views while models still read it.",
                "Remove the comment or make its text visible.")
    def add_taught(rule: str, severity: Severity, index: int, message, fix: str) -> None:
        """`add`, with an error in a Markdown fence captioned as an attack (a guide teaching it) made a warning."""
        if severity is Severity.ERROR and (ctx.markdown and rule in scan_precision.TAUGHT_RULES and
                                           scan_precision.attack_example(ctx, index) or
                                           scan_precision.detection_pattern(ctx, index, rule)):
            severity, said = Severity.WARNING, message

            def message():
                return f"{said() if callable(said) else said} Quoted as an attack example (its caption says so): " \
                    "a warning, not a block."
        add(rule, severity, index, message, fix)

    piped_lines: set[int] = set()
    piped = _pipe_to_shell(text) if (ctx.gates_off or ctx.has(_PIPE_TOKENS)) and _may_pipe_to_shell(text) else []
    for match in piped[:scan_context.MAX_MATCHES]:  # each is judged on its context; the rest are only counted
        piped_lines.add(_line(text, match.start()))
        scan_exec.download_finding(ctx, add_taught, "security-pipe-to-shell", match.start(), match.group().strip())
    if len(piped) > scan_context.MAX_MATCHES:
        counts["security-pipe-to-shell"] += len(piped) - scan_context.MAX_MATCHES

    def add_behaviour(rule: str, severity: Severity, index: int, message, fix: str) -> None:
        if rule == "security-download-exec" and _line(text, index) in piped_lines:
            return  # the same command is already reported as a pipe to a shell
        add_taught(rule, severity, index, message, fix)

    scan_rules.scan(ctx, add_behaviour, counts)
    scan_code.judge(ctx, add_behaviour, found, line_offset)  # the parsed flows (tree-sitter readers), after the text rules
    scan_prose.scan(ctx, add_behaviour, classes)
    for match in BASE64_BLOB.finditer(text) if _B64_RUN in classes else ():
        if _looks_encoded(text, match):
            add("security-base64-blob", Severity.WARNING, match.start(),
                f"A {len(match.group())}-character base64 blob: its content cannot be reviewed.",
                "Ship the decoded file under assets/ or explain what it is.")
    for rule, count in sorted(counts.items()):
        if count > MAX_FINDINGS_PER_RULE:
            severity = next((f.severity for f in found if f.rule == rule), Severity.WARNING)
            found.append(Finding(rule, severity, f"{count - MAX_FINDINGS_PER_RULE} more `{rule}` findings in this "
                                 f"file are not listed (only the first {MAX_FINDINGS_PER_RULE} are).",
                                 "Fix the ones listed, then validate again.", file, None))
    return found


def matched_paragraph(text: str, start: int, end: int | None = None) -> str:
    """The text a finding's digest covers: the paragraph around `start`..`end` (from the blank line before to the
    blank line after, never less than the whole lines and never more than `DIGEST_CONTEXT` characters beyond them).
    Wider than the match on purpose: a finding whose digest moves is "new" and waits for a maintainer, so a change
    anywhere in what was matched, at any column, is never mistaken for the finding a maintainer already saw."""
    end = max(start, end if end is not None else start)
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    low = max(0, line_start - DIGEST_CONTEXT)
    begin = low
    for blank in _BLANK_LINE.finditer(text, low, line_start + 1):
        begin = blank.end()
    after = _BLANK_LINE.search(text, max(line_end - 1, 0), line_end + DIGEST_CONTEXT)
    stop = after.start() if after else min(len(text), line_end + DIGEST_CONTEXT)
    # trailing blanks dropped: a paragraph at the end of a file reads the same before and after a new one follows it
    return text[min(begin, line_start):max(stop, line_end)].rstrip()


def _looks_encoded(text: str, match: re.Match) -> bool:
    """Base64 that hides something: mixed case (a protein or DNA sequence is one case only, a hex digest has no
    capitals), and not an image written as a `data:image/…;base64,` URI."""
    blob = match.group()
    if not (any(c.islower() for c in blob) and any(c.isupper() for c in blob)) or scan_precision.media_base64(blob):
        return False
    before = text[max(0, match.start() - 64):match.start()]
    return not before.endswith(";base64,") or _DATA_URI.search(before) is None


# A data URI of a media type (an image, a font, audio, video, a PDF): the bytes of a file, declared as such.
_DATA_URI = re.compile(r"data:(?:image|font|audio|video|application/(?:pdf|font-woff|octet-stream|x-font-\w+))/?"
                       r"[\w.+-]*(?:;[\w=.-]+)*;base64,\Z")


def _pipe_to_shell(text: str) -> list[re.Match]:
    """PIPE_TO_SHELL's matches, found by running it only just before each anchor (a pipe into a shell, `<(curl`,
    `iex (`): the download command sits between the previous `|` (or the line start) and the pipe, or right before
    the whitespace before `<(` (up to 256 whitespace characters). Each window is short, so the work stays linear."""
    matches: dict[int, re.Match] = {}
    for anchor in _PIPE_ANCHOR.finditer(text):
        at = anchor.start()
        if text[at] == "|":
            previous = text.rfind("|", 0, at)  # then the line start, looked for only after that pipe
            start = max(previous, text.rfind("\n", previous + 1, at)) + 1
        elif text[at] == "<":
            start = max(0, at - len(text[max(0, at - 256):at]) + len(text[max(0, at - 256):at].rstrip()) - 4)
        else:
            start = at
        for match in PIPE_TO_SHELL.finditer(text, start, anchor.end()):
            matches.setdefault(match.start(), match)
    return [matches[index] for index in sorted(matches)]


def _invisible_positions(text: str, raw: bytes) -> tuple[list[int], int]:
    """(sorted positions, total) of the characters `safety.INVISIBLE` matches, without a regex over every character:
    the suspects are looked for among the non-ASCII characters alone (all of them in mostly non-ASCII text), then
    each distinct one is found with `str.find` and counted with `str.count`; presentation selectors are judged by
    the character before each. At most `MAX_FINDINGS_PER_RULE` positions of each are kept."""
    pool = text if len(raw) > 2 * len(text) else raw.translate(None, _ASCII).decode("utf-8", "surrogatepass")
    positions: list[int] = []
    total = 0
    for char in set(_INVISIBLE_SUSPECT.findall(pool)):
        if char in "\ufe0e\ufe0f":
            pieces = text.split(char)
            before = "".join([piece[-1:] or "\0" for piece in pieces[:-1]])  # the character before each selector
            flagged = [m.start() for m in _NOT_EMOJI_BASE.finditer(before)]
            total += len(flagged)
            if flagged:
                ends = list(accumulate(len(piece) + 1 for piece in pieces[:flagged[-1] + 1]))
                positions += [ends[k] - 1 for k in flagged[:MAX_FINDINGS_PER_RULE]]
            continue
        if char == "\u200d" or "\U000e0020" <= char <= "\U000e007f":
            kept = [i for i in emoji.all_positions(text, char) if not emoji.in_emoji_sequence(text, i)]
            total += len(kept)
            positions += kept[:MAX_FINDINGS_PER_RULE]
            continue
        total += text.count(char)
        index = text.find(char)
        for _ in range(MAX_FINDINGS_PER_RULE):
            if index < 0:
                break
            positions.append(index)
            index = text.find(char, index + 1)
    positions.sort()
    return positions, total


# Characters that reorder the visible text around them (Trojan Source): what a reviewer sees is not what is read.
_REORDERING = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Enough invisible characters in a row to carry data (a byte in 8 zero-width bits, or selectors after one letter).
_SMUGGLING_RUN = 3
_INVISIBLE_ONE = re.compile(f"[{safety.DEFAULT_IGNORABLE}{safety.BLANK_LOOKING}]")


def _smuggling(text: str, index: int) -> str:
    """Why the invisible character at `index` hides text, or "" for a lone mark that hides nothing (a left-to-right
    mark before a fence, a joiner inside a Persian or Devanagari word, a selector after a symbol). Hiding is: text
    reordered around it, a tag or supplementary selector (each carries an ASCII character or a byte), a run long
    enough to encode data, or a split of an ASCII word (`ig<U+200B>nore` slips past keyword filters)."""
    char = text[index]
    if char in _REORDERING:
        return "reorders the text around it"
    if char >= "\U000e0000":
        return "encodes a hidden character"
    start, end = index, index + 1
    while start > 0 and index - start < _SMUGGLING_RUN and _INVISIBLE_ONE.match(text, start - 1):
        start -= 1
    while end < len(text) and end - index <= _SMUGGLING_RUN and _INVISIBLE_ONE.match(text, end):
        end += 1
    if end - start >= _SMUGGLING_RUN:
        return "is one of a run of invisible characters that can encode hidden data"
    if char != "\u00ad" and start > 0 and end < len(text) and text[start - 1].isascii() and \
            text[start - 1].isalnum() and text[end].isascii() and text[end].isalnum():
        return "splits a word, which slips it past keyword filters"
    return ""


def _markdown_hidden(ctx: scan_context.Context, add) -> None:
    """Text a Markdown renderer (GitHub's, the site's) never shows: raw HTML comments and friends, and link
    reference definitions that carry a title or that nothing references (`[^1]: …` is a footnote, which GitHub
    shows at the end of the page). Inside a code fence or a code span the
    same characters are shown as typed (code, not hidden text), so they are skipped. Hidden text that speaks to
    the agent or names an address is an error: that is how instructions are smuggled past a reviewer."""
    text = ctx.text
    if _HTML_HIDDEN_HINT.search(text):
        for match in HIDDEN_HTML.finditer(text):
            inner = next((g for g in match.groups() if g is not None), "")
            if not inner.strip() or ctx.in_fence(match.start()) or ctx.in_code_span(match.start()):
                continue
            if _hidden_order(inner) and _HIDDEN_HARM.search(scan_precision.unforbidden(inner)):  # and the warning below
                add("security-hidden-instructions", Severity.ERROR, match.start(),
                    f"Hidden text gives the agent orders the reader never sees: \"{inner.strip()[:100]}\".",
                    "Remove the hidden text; write any real step visibly.", end=match.end())
            unclosed = not match.group().endswith(">")
            if not unclosed and not _hidden_order(inner) and scan_precision.inert_hidden(inner):
                continue  # a marker (`<!-- FILEMAP:BEGIN -->`) or a source and licence note: nothing to follow
            if unclosed and match.group(1) is None and not _starts_line(text, match.start()):
                continue  # an unclosed `<?`, `<![CDATA[` or `<!X` inside a paragraph is shown as typed
            what = "An unclosed HTML comment or block hides the rest of the file" if unclosed \
                else "Raw HTML (a comment, `<?…?>`, `<!…>` or CDATA) hides text"
            add("security-hidden-comment", Severity.WARNING, match.start(),
                f"{what} from rendered views while models still read it.", "Remove it or make its text visible.",
                end=match.end())
    if "<" in text and ctx.may_hold(_HIDDEN_ELEMENT_WORDS):
        for match in HIDDEN_ELEMENT.finditer(text):
            if ctx.in_fence(match.start()) or ctx.in_code_span(match.start()):
                continue
            if match.group(1) is None or match.group(2).strip():
                add("security-hidden-comment", Severity.WARNING, match.start(),
                    f"A `<{(match.group(1) or 'hidden').lower()}>` element hides text from rendered views while "
                    "models still read it.", "Remove it or make its text visible.", end=match.end())
    if not _REF_DEF_HINT.search(text):
        return
    used: Counter[str] | None = None
    for match in _REF_DEF.finditer(text):
        start = text.rfind("\n", 0, match.start()) + 1
        if text[start:match.start()].strip(" ") or match.start() - start > 3:
            continue  # not at the start of a line: not a definition
        end = text.find("\n", match.end())
        end = len(text) if end < 0 else end
        rest = text[match.end():end].split(None, 1)  # [destination, title] when both are on this line
        title = rest[1] if len(rest) == 2 else ""
        if len(rest) < 2 and end < len(text):  # the destination, or the title, may be on the next line
            following = text[end + 1:end + 2001].split("\n", 1)[0].strip()
            if not rest:
                parts = following.split(None, 1)
                title = parts[1] if len(parts) == 2 else ""
            elif following[:1] in ('"', "'", "("):
                title = following
        if used is None:
            used = Counter(_label(m) for m in _REF_USE.findall(text))
        unused = used[_label(match.group(1))] < 2  # the definition itself is one occurrence
        if not title and rest and rest[0].startswith("[") and len(match.group(1).split()) < 6:
            continue  # a form's `[ECG, etc.]: [Results]` line: a placeholder, not a link nor hidden orders
        if (title or unused) and not ctx.in_fence(match.start()) and not match.group(1).startswith("^"):
            reason = "its title is never shown" if title else "nothing links to it, so none of it is shown"
            add("security-hidden-comment", Severity.WARNING, match.start(),
                f"A Markdown link reference definition (`[{match.group(1)[:40]}]: …`, as in `[//]: # (…)`) hides "
                f"text: {reason}, while models still read it.",
                "Remove the definition, or use it in a visible link and drop its title.")


# Hidden text addressed to the agent: an order to the assistant, or a step that installs or runs something.
_HIDDEN_ORDER = re.compile(r"\b(?:assistant|agent|model|AI|claude|llm)\b[^.\n]{0,40}\b(?:must|should|ignore|instead|"
                           r"always|never|do not|don't)\b|\b(?:install|download|run|execute|open|curl|wget)\b[^\n]{0,80}"
                           r"(?:https?://|\.exe\b|\|\s*(?:ba)?sh\b)", re.I)


# An order hidden from the reader is an error when it reaches past the project: the network, a download that runs,
# the user's secrets, or the agent's own instructions. "You should edit templates/guide.md instead" is a
# maintainer's note (the hidden-comment warning still names it).
_HIDDEN_HARM = re.compile(r"https?://|\b(?:curl|wget|iex|upload|send|post|exfiltrat\w*|secret|token|password|"
                          r"credential|api[_ -]?key|ignore|disregard|override|forget|pretend|conceal|do not tell|"
                          r"don't tell|never tell|never mention|system prompt|jailbreak)\b|\.ssh\b|\.env\b|"
                          r"\.aws\b|\.exe\b|\|\s*(?:ba)?sh\b|<\|?/?(?:system|im_start)", re.I)


def _hidden_order(inner: str) -> bool:
    """Whether hidden text gives orders: an override, concealment, a role tag, a download and run, or an instruction
    addressed to the assistant (attribution and licence notes do not)."""
    return bool(_HIDDEN_ORDER.search(inner) or scan_rules.OVERRIDE.search(inner) or scan_rules.CONCEAL.search(inner)
                or scan_rules.ROLE_TAG.search(inner))


def _starts_line(text: str, index: int) -> bool:
    """Whether only up to three spaces precede `index` on its line (where CommonMark starts an HTML block)."""
    start = text.rfind("\n", 0, index) + 1
    return index - start <= 3 and not text[start:index].strip(" ")


def _label(label: str) -> str:
    return " ".join(label.split()).casefold()


def _may_pipe_to_shell(text: str) -> bool:
    """Whether PIPE_TO_SHELL can match: every match ends at one of `_PIPE_ANCHOR`'s (looked for by the hints, which
    are cheaper than the anchor's own pattern) and names a downloader."""
    return bool(("|" in text and _PIPE_BAR_HINT.search(text)) or _PIPE_PROCESS_HINT.search(text)
                 or _PIPE_IEX_HINT.search(text)) \
        and any(word in text for word in _DOWNLOADERS)
