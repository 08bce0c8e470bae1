"""Everything the model reads is prose: instructions that take over the agent are judged wherever they are written.

Where: a skill's Markdown and text, its JSON and YAML (read as they are: every string value is on a line), the
strings a script hands the model (docstrings, `description=` of an MCP tool or `@tool`, text it prints or writes
with a heredoc), text spelled with look-alike letters (`confusables.fold`) and text that is encoded
(`decode.runs`). What: an override, concealment or a fake role marker in any of the languages `phrases` knows, "never
ask for confirmation", enrolment in a remote schedule, and rules written into the agent's memory or configuration
files; in a tool description also orders about other tools and files (MCP tool poisoning).

Cost: every family is gated by its needles (`Context.finditer` searches only the lines that hold one); a script's
strings are joined into one text and judged once; folding and decoding run only where a cheap test finds a candidate.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right

from skillyard.format.scan import confusables, decode, gates, pattern_gate, precision
from skillyard.format.scan import phrases as ph
from skillyard.format.scan import rules as scan_rules
from skillyard.format.scan.context import _URL, ERROR, WARNING, Add, Context, _discussed, _token_of, _words
from skillyard.format.scan.exec_flows import DOWNLOAD_EXEC

_ACTION = re.compile(r"https?://|\b(?:curl|wget|rm\s+-rf|git\s+push\s+(?:-f|--force)|drop\s+table|delete|upload|"
                     r"send|post|install|chmod|sudo|delet\w*|overwrit\w*|wip\w*|borra\w*|elimina\w*|supprim\w*|l(?:ö|oe)sch\w*|"
                     r"apag\w*|cancella\w*|удал\w*|отправ\w*|envi\w*|sube|upload\w*|hochlad\w*)\b|删除|上传|削除|送信|"
                     r"\.ssh\b|\.env\b|id_rsa|credentials", re.I)
# A script that defines tools for an agent (MCP servers, agent frameworks): its docstrings are tool descriptions.
_TOOL_FILE_MARKS = (".tool(", ".tool\n", "@tool", "FastMCP", "McpServer", "registerTool", "inputSchema",
                    "input_schema", "Tool(name", "mcp.server", "modelcontextprotocol")
_DOCSTRING = re.compile(r"(\"\"\"|''')(.{8,20000}?)\1", re.S)
_DESCRIPTION = re.compile(r"\bdescription[\"']?\s*[:=]\s*[rfbu]?(?:\"\"\"(.{8,20000}?)\"\"\"|'''(.{8,20000}?)'''|"
                          r"\"((?:[^\"\\\n]|\\.){8,4000})\"|'((?:[^'\\\n]|\\.){8,4000})'|`((?:[^`\\]|\\.){8,4000})`)",
                          re.S | re.I)
_PRINTED = re.compile(r"(?:\bprint|\bconsole\.(?:log|error|warn|info)|\becho|\bprintf|\bWrite-(?:Host|Output)|"
                      r"\bputs|\bfmt\.Print(?:ln|f)?|\bsys\.stdout\.write)\s*\(?\s*[rfbu]?(?:\"((?:[^\"\\\n]|\\.){8,4000})\""
                      r"|'((?:[^'\\\n]|\\.){8,4000})'|`((?:[^`\\]|\\.){8,4000})`)")
_HEREDOC = re.compile(r"<<-?\s*[\"']?([A-Za-z_]\w{0,20})[\"']?[^\n]{0,200}\n(.{0,20000}?)\n[ \t]*\1\b", re.S)
_STRING_WORDS = _words("description", "print", "log", "error", "warn", "info", "echo", "printf", "write", "host",
                       "output", "puts", "println", "stdout")
_TOOL_JSON = _words("inputschema", "input_schema", "tools", "mcpservers")
_SEPARATOR = "\n\n"
_CJK_OR_CYRILLIC = re.compile(rb"[\xd0\xd1\xe3-\xe9]")  # the plain form of `_cjk_or_cyrillic`
_CJK_LEADS = tuple(bytes([lead]) for lead in (0xD0, 0xD1, *range(0xE3, 0xEA)))


def _cjk_or_cyrillic(raw: bytes) -> bool:
    """Whether `raw` holds a Cyrillic, Chinese or Japanese UTF-8 lead byte: nine one-byte `in` tests (memchr), several
    times cheaper than the character-class search `_CJK_OR_CYRILLIC` (tests/format/test_scan_speed.py)."""
    return any(lead in raw for lead in _CJK_LEADS)
_MAX_STRINGS = 400_000  # characters of a script's model-read strings judged


class _Text:
    """A text judged as prose and how its positions map back to the file: a list of (start in this text, start in the
    file) pieces, or one fixed file position for decoded text."""

    def __init__(self, ctx: Context, text: str, pieces: list[tuple[int, int]] | None, at: int = 0,
                 markup: str | None = None):
        self.ctx = Context(text, ctx.file + ".prose.txt", markup, skill_name=ctx.skill_name, homes=ctx.homes) \
            if text is not ctx.text else ctx
        self.pieces = pieces
        self.at = at
        self._starts = [p[0] for p in pieces] if pieces else []

    def where(self, index: int) -> int:
        if self.pieces is None:
            return self.at
        k = bisect_right(self._starts, index) - 1
        return self.pieces[k][1] + index - self.pieces[k][0] if k >= 0 else self.at


@functools.cache
def _marks_pattern(marks: tuple[bytes, ...]) -> tuple[bytes, ...]:
    """One object per set of marks, shared by the families and prefilters that use the same set, so
    `Context.raw_has` searches a file for it once (each mark an `in` test: a few times fewer instructions than one
    alternation regex, whose scan tests every byte against the marks' first characters)."""
    return tuple(dict.fromkeys(marks))


class _Family:
    """One kind of takeover: its pattern, needles and the file words that gate it (a set test, no text search)."""

    def __init__(self, pattern: re.Pattern, words: tuple[tuple[str, ...], tuple[str, ...]], rule: str, what: str,
                 family: str, also: tuple[frozenset[bytes], ...] | None = None, marks: tuple[bytes, ...] = (),
                 prose_marks: int | None = None, trigger: gates.Trigger | None = None):
        self.pattern, self.rule, self.what, self.family = pattern, rule, what, family
        self.trigger = trigger  # what every match of `pattern` holds (`gates`), tested before the marks
        self.ascii, self.others = words
        tokens = [_token_of(w) for w in self.ascii]
        self.gate = frozenset(t for t in tokens if t)
        # a needle with no word in it (`<|`) is always looked for; a stem with no inner word (`gates.STEMS`:
        # `confirmation` runs on into `confirmations`) is looked for as lowercase bytes
        stems = tuple(w for w, t in zip(self.ascii, tokens, strict=True) if not t and w in gates.STEMS and w.isascii())
        self.stems = tuple(w.encode() for w in stems)  # (a non-ASCII one is looked for in every case: always)
        self.always = any(not t and w not in stems for w, t in zip(self.ascii, tokens, strict=True))
        self.also = also  # sets of words an ASCII match's file also holds, one of each (a verb beside the noun)
        self.marks = marks  # case-sensitive bytes one of which an ASCII match holds
        prose_marks = len(marks) if prose_marks is None else prose_marks  # the first N, in a skill's own text
        self.prose_count = prose_marks
        self._marks = _marks_pattern(marks) if marks else None
        self._prose_marks = _marks_pattern(marks[:prose_marks]) if marks else None

    def needles(self, ctx: Context, ascii_only: bool, where: str = "prose") -> tuple[str, ...]:
        """The needles to search `ctx` for: none when a gate fails (set tests first, then one byte search). Asked
        once per file and form (`_possible`, then `_hits`, ask the same)."""
        key = (self, ascii_only, where != "prose")
        memo = vars(ctx).setdefault("_family_needles", {})
        found = memo.get(key)
        if found is None:
            found = memo[key] = self._needles(ctx, ascii_only, where)
        return found

    def _needles(self, ctx: Context, ascii_only: bool, where: str) -> tuple[str, ...]:
        fail = () if ascii_only else self.others
        gated = gates.ENABLED and not ctx.folds
        if gated and not self._passes(ctx):
            return fail
        marks = self._marks if where != "prose" else self._prose_marks
        if marks is not None and not ctx.raw_has(marks):  # also what a match may rest on (`<INSTRUCTIONS>` in
            return fail  # a tool description only, `ROLE_MARKER_PROSE_MARKS`): asked with the gates off too
        if gated and not (self.always or ctx.has(self.gate) or ctx.low_has(self.stems)):
            return fail  # the stems last: each is a search of the file (cached), the tests above are set tests
        return self.ascii if ascii_only else self.ascii + self.others

    def _passes(self, ctx: Context) -> bool:
        """The family's cheap gates (its `also` words, its trigger), which every match passes; its needles' words and
        stems are asked after them (`_needles`). Skipped with the gates off (`gates.ENABLED`), so
        tests/format/test_scan_gates.py compares them."""
        if self.also is not None:
            for words in self.also:
                if not ctx.has(words):
                    return False
        return self.trigger is None or self.trigger.fires(ctx)


# What every match of phrases.ROLE_MARKER holds: `<<SYS>>`; `<|…|>` around one of its words; `<start_of_turn>`; a
# capitalised SYSTEM, ADMIN or DEVELOPER before MESSAGE, NOTE, … (whole words: a line start, `[`, `*` or blanks
# before, blanks or `:` after); `SYSTEM:` or `ADMINISTRATOR:`; or one of its tag words inside `<…>`.
_ROLE_MARKER_TRIGGER = gates.Trigger(
    "role-marker",
    (_words("sys"), gates.Bytes(b"<<")),
    (_words("start_header_id", "end_header_id", "eot_id", "system", "user", "assistant"), gates.Bytes(b"<|")),
    (_words("start_of_turn", "end_of_turn"),),
    (_words("system", "admin", "developer"),
     _words("message", "note", "override", "instruction", "instructions", "prompt", "update", "notice"),
     gates.Bytes(b"SYSTEM", b"ADMIN", b"DEVELOPER", lowered=False)),
    (_words("system", "administrator"), gates.Bytes(b"SYSTEM", b"ADMINISTRATOR", lowered=False)),
    (_words("important", "system_instruction", "system_instructions", "admin", "instructions"),
     gates.Bytes(b"IMPORTANT", b"SYSTEM_INSTRUCTION", b"ADMIN", b"INSTRUCTIONS", lowered=False), gates.Bytes(b"<")),
)
# What every match of phrases.AGENT_CONFIG holds (IGNORECASE): the name's word where it is bounded on both sides
# (`CLAUDE.md`, `.cursor/rules`, `mcp_servers.json`), then the name's bytes (`.cursorrules` may run on, so bytes only).
_AGENT_CONFIG_TRIGGER = gates.Trigger(
    "agent-config",
    (_words("claude"), gates.Bytes(b"claude.md", b".claude/", b".claude.json")),
    (_words("claude_desktop_config", "mcp_server", "mcp_servers"),),
    (_words("agents"), gates.Bytes(b"agents.md")),
    (_words("gemini"), gates.Bytes(b"gemini.md", b".gemini/settings.json")),
    (_words("cursor"), gates.Bytes(b".cursor/rules", b".cursor/mcp.json")),
    (_words("copilot"), gates.Bytes(b"copilot-instructions.md")),
    (_words("mcp"), gates.Bytes(b".mcp.json")),
    (_words("codex"), gates.Bytes(b".codex/config.toml")),
    (_words("continue"), gates.Bytes(b".continue/config")),
    (gates.Bytes(b".cursorrules", b".windsurfrules", b".clinerules"),),
)
# What every ASCII match of phrases.OVERRIDE_INTL holds: a verb, which runs on (`ignora\w*`: bytes, found in the
# matcher's one pass), or one of the nouns an alternative starts with.
_OVERRIDE_INTL_TRIGGER = gates.Trigger(
    "override-intl",
    (gates.Bytes(*(v.encode() for v in ph.OVERRIDE_INTL_VERBS if v.isascii())),),
    (_words("instrucciones", "anweisungen", "regeln", "vorgaben", "tiens", "tenez"),),
)
_OVERRIDE = "tells the agent to drop its other instructions"
_CONCEAL = "tells the agent to hide what it does from the user"
_NO_CONFIRM = "tells the agent never to ask the user for confirmation"
_EVERYWHERE = (
    _Family(ph.OVERRIDE_INTL, ph.OVERRIDE_INTL_WORDS, "security-prompt-injection", _OVERRIDE, "override",
            trigger=_OVERRIDE_INTL_TRIGGER),
    _Family(ph.CONCEAL_INTL, ph.CONCEAL_INTL_WORDS, "security-concealment", _CONCEAL, "conceal"),
    _Family(ph.NO_CONFIRM, ph.NO_CONFIRM_EN_WORDS, "security-no-confirmation", _NO_CONFIRM, "confirm",
            also=(_words("never", "not", "don", "dont", "without", "skip", "bypass", "suppress", "disable", "need"),)),
    _Family(ph.NO_CONFIRM_INTL, ph.NO_CONFIRM_WORDS, "security-no-confirmation", _NO_CONFIRM, "confirm",
            also=(_words(*ph.NO_CONFIRM_INTL_NOT),)),
    _Family(ph.MEMORY, ph.MEMORY_WORDS, "security-agent-config-write", "writes standing rules into the agent's "
            "memory", "memory", also=(_words("always", "never", "now", "permanently", "future", "forever"),)),
    _Family(ph.ROLE_MARKER, ph.ROLE_MARKER_WORDS, "security-prompt-injection", "holds a fake system or role marker",
            "role", marks=ph.ROLE_MARKER_MARKS, prose_marks=ph.ROLE_MARKER_PROSE_MARKS, trigger=_ROLE_MARKER_TRIGGER),
)
_ENGLISH = (  # in a prose file these are rules.injection's, gated as it gates them
    _Family(scan_rules.OVERRIDE, (scan_rules._INJECT_WORDS, ()), "security-prompt-injection", _OVERRIDE, "override",
            also=(scan_rules._INJECT_VERBS | scan_rules._EARLIER | scan_rules._SAFETY_KINDS |
                  _words("now", "new", "prompt", "longer", "apply"),)),
    _Family(scan_rules.CONCEAL, (scan_rules._CONCEAL_WORDS, ()), "security-concealment", _CONCEAL, "conceal",
            trigger=scan_rules.CONCEAL_TRIGGER),
    _Family(scan_rules.ROLE_TAG, (scan_rules._TAG_WORDS, ()), "security-prompt-injection",
            "holds a fake conversation tag", "role", marks=ph.ROLE_TAG_MARKS),
)
_TOOL = _Family(ph.TOOL_ORDER, ph.TOOL_ORDER_WORDS, "security-tool-poisoning", "gives the agent orders about other "
                "tools or files", "tool")
_REMOTE = _Family(ph.REMOTE_ORDER, ph.REMOTE_WORDS, "security-remote-instructions", "", "remote",
                  also=(_words(*ph.SCHEDULE_WORDS), _words(*ph.REMOTE_ORDER_WORDS)))
# No `also` words: a write is reported when its paragraph holds a takeover, a concealment, an override or a remote
# order (`_hits`), and `ph.TAKEOVER_WORDS` covers only the first ("do not tell the user" holds none of them).
_CONFIG = _Family(ph.AGENT_CONFIG, ph.AGENT_CONFIG_WORDS, "security-agent-config-write", "", "config",
                  marks=ph.AGENT_CONFIG_MARKS, trigger=_AGENT_CONFIG_TRIGGER)
_HIT_PATTERNS = tuple(f.pattern for f in (*_EVERYWHERE, *_ENGLISH, _TOOL, _REMOTE, _CONFIG))  # all `_hits` searches


def _families(where: str) -> tuple[_Family, ...]:
    return _EVERYWHERE + (_ENGLISH if where != "prose" else ()) + (_TOOL,) * (where == "tool") + (_REMOTE, _CONFIG)


def _prefilter(where: str) -> tuple[frozenset[bytes], tuple[bytes, ...] | None, tuple[bytes, ...]] | None:
    """(words one of which a file holds if any family with words can match, marks of the families that have none,
    the stems of those with words, `_Family.stems`):
    the common file is ruled out with one set test and one byte search. None when a family may match in any file."""
    words: set[bytes] = set()
    marks: list[bytes] = []
    stems: list[bytes] = []
    for family in _families(where):
        if family.also:  # every match's file holds one of these (`_Family._passes`), whatever its needles
            words |= family.also[0]
        elif family.always:
            own = family.marks if where != "prose" else family.marks[:family.prose_count]
            if not own:  # a family that may match in any file: no prefilter at all
                return None
            marks += own
        else:
            words |= family.gate
            stems += family.stems
    return frozenset(words), _marks_pattern(tuple(marks)) if marks else None, tuple(dict.fromkeys(stems))


_PREFILTERS = {where: _prefilter(where) for where in ("prose", "tool", "string", "hidden")}


def _possible(ctx: Context, where: str, ascii_only: bool) -> bool:
    """Whether any family can match in `ctx` (set tests and a few byte searches; no text is searched)."""
    if ascii_only and gates.ENABLED and not ctx.folds and _PREFILTERS[where] is not None:
        words, marks, stems = _PREFILTERS[where]
        if not ctx.has(words) and (marks is None or not ctx.raw_has(marks)) and \
                not ctx.low_has(stems):
            return False
    return any(f.needles(ctx, ascii_only, where) for f in _families(where))


_DATA_SUFFIXES = (".json", ".jsonl", ".yaml", ".yml", ".toml", ".prose.txt")  # every string there is quoted
_TEACHING = re.compile(r"attack|malicious|exploit|injection|poison|detect|flag|warn|red flag|suspicious|"
                       r"e\.g\.|for example|such as|patterns? (?:like|to)", re.I)


def _taught(ctx: Context, index: int) -> bool:
    """A security skill quoting or describing an attack (quoted, in a paragraph about attacks, or forbidden)."""
    if (ctx.quoted(index) and not ctx.file.endswith(_DATA_SUFFIXES)) or _discussed(ctx, index) or ctx.negated(index) \
            or precision.quoted_to_refuse(ctx, index):
        return True
    start, end = ctx.block(index, 4) if not ctx.code else (max(0, index - 300), index + 300)
    return bool(_TEACHING.search(_URL.sub(" ", ctx.text[start:end])))


def _hits(text: _Text, where: str) -> list[tuple[str, int, str, str]]:
    """(rule, index in the judged text, what it does, family) for every takeover the text holds. `where` is "prose"
    (the file itself: the English override, concealment and role tags are rules.injection's), "tool" (a tool's
    description), "string" (a docstring or printed text) or "hidden" (decoded or folded text)."""
    ctx = text.ctx
    out: list[tuple[str, int, str, str]] = []
    if pattern_gate.none_can_match(ctx, _HIT_PATTERNS):
        return out  # every hit starts at a match of one of these: the one-pass engine saw none
    # The needles of other scripts are looked for only in a file that holds Chinese, Japanese or Cyrillic letters
    # (their UTF-8 lead bytes), not in English with an arrow or an emoji.
    ascii_only = ctx.raw.isascii() or not _cjk_or_cyrillic(ctx.raw)
    if not _possible(ctx, where, ascii_only):
        return out  # the common file: a few set tests
    families = _EVERYWHERE + (_ENGLISH if where != "prose" else ())
    if where == "tool" or (where == "prose" and ctx.has(_TOOL_JSON)):
        families += (_TOOL,)
    for family in families:
        needles = family.needles(ctx, ascii_only, where)
        if not needles:
            continue
        for match in ctx.finditer(family.pattern, needles):
            if where != "hidden" and (ctx.as_code(match.start()) or _taught(ctx, match.start())):
                continue
            if family.family == "role" and where != "hidden" and precision.dialogue(ctx, match.start()):
                continue  # a prompt template or a transcript: every role has its turn (precision.dialogue)
            if family.family == "role" and where == "prose" and "IMPORTANT" in match.group().upper() and \
                    "<" in match.group():
                continue  # `<IMPORTANT>` is emphasis in a skill's own text; only a tool description hides behind it
            out.append((family.rule, match.start(), family.what, family.family))
            break
    for match in ctx.finditer(ph.REMOTE_ORDER, _REMOTE.needles(ctx, True)):
        start, end = ctx.block(match.start(), 3)
        if ph.SCHEDULE.search(ctx.text, start, end) and (where == "hidden" or not _taught(ctx, match.start())):
            out.append(("security-remote-instructions", match.start(), "enrols the agent in instructions fetched "
                        "from a remote address on a schedule", "remote"))
            break
    for match in ctx.finditer(ph.AGENT_CONFIG, _CONFIG.needles(ctx, True)):
        start, end = (0, len(ctx.text)) if ctx.code else ctx.block(match.start(), 4)
        line_start = ctx.text.rfind("\n", 0, match.start()) + 1
        line_end = ctx.text.find("\n", match.end())
        line = ctx.text[line_start:line_end if line_end >= 0 else len(ctx.text)]
        if not ph.CONFIG_WRITE.search(line if not ctx.code else ctx.text[start:end]):
            continue
        chunk = ctx.text[start:end]
        if where != "hidden" and (ctx.as_code(match.start()) and ctx.prose or _taught(ctx, match.start())):
            continue
        if (ph.TAKEOVER.search(chunk) or ph.NO_CONFIRM.search(chunk) or ph.NO_CONFIRM_INTL.search(chunk) or scan_rules.CONCEAL.search(chunk) or
                scan_rules.OVERRIDE.search(chunk) or ph.REMOTE_ORDER.search(chunk)) and \
                (where == "hidden" or not _taught(ctx, match.start())):
            out.append(("security-agent-config-write", match.start(), f"writes standing orders into the agent's "
                        f"configuration (`{match.group()}`)", "config"))
            break
    return out


_FIX = {
    "override": "Remove it; a skill adds to the agent's instructions and must not replace them.",
    "conceal": "Remove it; a skill's steps must be visible to the user they run for.",
    "confirm": "Remove it; let the agent ask the user before actions that change or send anything.",
    "memory": "Remove it; a skill must not plant rules that outlive the task.",
    "role": "Remove the marker; a skill's text is the skill's, never the system's.",
    "remote": "Ship the instructions in the skill, where they are reviewed, instead of fetching new ones.",
    "config": "Remove the step; tell the user what to add to their agent's settings themselves.",
    "tool": "Describe what the tool does and its parameters; nothing else.",
}


# "without (asking for) confirmation" in each language the no-confirmation family reads, and the negations that turn
# a sentence holding it around ("do not delete anything without confirmation": the agent must ask).
_WITHOUT = re.compile(r"without|sin|sem|sans|ohne|senza|без", re.I)
_NEGATED_ACTION = re.compile(r"\b(?:not|never|don't|no|nunca|n[ãa]o|ne|nicht|niemals|kein\w*|non|mai|не|нельзя|никогда)\b|"
                             r"不要|不得|切勿|禁止", re.I)


def _forbids_without(ctx: Context, index: int) -> bool:
    """A "without confirmation" inside a sentence that forbids the action: a double negative that requires asking."""
    if not _WITHOUT.match(ctx.text, index):
        return False
    start = max(ctx.text.rfind("\n", 0, index), ctx.text.rfind(". ", 0, index), index - 200) + 1
    return bool(_NEGATED_ACTION.search(ctx.text, start, index))


def _report(ctx: Context, add: Add, text: _Text, where: str, label: str) -> None:
    for rule, index, what, family in _hits(text, where):
        at = text.where(index)
        quote = text.ctx.sentence(index).strip()[:100]
        if where == "hidden":
            rule = "security-hidden-instructions" if family not in ("tool",) else rule
            add(rule, ERROR, at, f"{label} an instruction that {what}: \"{quote}\". Reviewers see only the "
                "encoding.",
                _FIX[family])
            continue
        if where == "tool":
            start, end = text.ctx.block(index, 6)
            acts = _ACTION.search(text.ctx.text, start, end) or DOWNLOAD_EXEC.search(text.ctx.text, start, end)
            if family == "confirm" and not acts:
                continue  # "no need to confirm: it only reads public data", as in prose (below)
            held = family == "conceal" and not acts and precision.data_kept_back(text.ctx.sentence(index))
            add("security-tool-poisoning", WARNING if held else ERROR, at,  # an internal field kept from the user
                f"A tool description {what}: \"{quote}\". The agent reads "
                "every tool's description before any call, so this acts whenever the tool is listed.", _FIX[family])
            continue
        severity = WARNING if family == "role" and where == "prose" and precision.staff_note(text.ctx, index) else ERROR
        if family == "confirm" and _forbids_without(text.ctx, index):
            continue  # "do not delete old notes without the user's confirmation" asks for it
        if family in ("conceal", "confirm"):
            start, end = precision.item_span(text.ctx, index, *text.ctx.block(index, 6))  # a list item: its own line
            chunk = precision.without_confirmed(text.ctx.text[start:end])  # "delete only after confirmation" acts not
            acts = bool(_ACTION.search(chunk) or DOWNLOAD_EXEC.search(chunk))
            severity = ERROR if acts or where == "string" and family == "conceal" else WARNING
            if family == "confirm" and not acts:
                continue  # "do not ask before pulling the report" is a workflow, not a takeover
        where_said = f"{label} " if label else ""
        add(rule, severity, at, f"{where_said.capitalize() or 'The text '}{what}: \"{quote}\".", _FIX[family])


def scan(ctx: Context, add: Add, classes: bytes | None = None) -> None:
    """Every prose judgement over one file (see the module docstring)."""
    if ctx.prose:
        _report(ctx, add, _Text(ctx, ctx.text, [(0, 0)]), "prose", "")
    elif len(ctx.text) <= 4 * _MAX_STRINGS:
        _code_strings(ctx, add)
    folded = confusables.fold(ctx.text, ctx.raw)
    if folded is not None:
        _folded(ctx, add, folded)
    for index, kind, decoded in decode.runs(ctx.text, classes, raw=ctx.raw):
        taught = ctx.prose and (_taught(ctx, index) or ctx.in_fence(index))
        if taught and ctx.markdown and precision.security_skill(ctx) and _taught(ctx, index):
            continue  # a security guide's encoded attack sample, said to be one: what it teaches to recognise
        _report(ctx, add if not taught else _as_warning(add), _Text(ctx, decoded, None, index), "hidden",
                f"Text encoded as {kind} hides")


def _as_warning(add: Add) -> Add:
    """`add` with every finding a warning: an encoded attack quoted by a skill that teaches about them."""
    return lambda rule, severity, index, message, fix: add(rule, WARNING, index, message, fix)


def _code_strings(ctx: Context, add: Add) -> None:
    """A script's model-read strings, joined: tool descriptions judged as "tool", the rest as "string". The strings
    are part of the file, so a file without any family's word has none in its strings either."""
    ascii_only = ctx.raw.isascii() or not _cjk_or_cyrillic(ctx.raw)
    if not (_possible(ctx, "tool", ascii_only) or _possible(ctx, "string", ascii_only)):
        return
    tool_file = any(mark in ctx.text for mark in _TOOL_FILE_MARKS)
    spans: list[tuple[int, int, str]] = []
    if '"""' in ctx.text or "'''" in ctx.text:
        for match in _DOCSTRING.finditer(ctx.text):
            spans.append((match.start(2), match.end(2), "tool" if tool_file else "string"))
    if ctx.has(_STRING_WORDS):
        for match in _DESCRIPTION.finditer(ctx.text):
            group = next(g for g in range(1, 6) if match.group(g) is not None)
            spans.append((match.start(group), match.end(group), "tool"))
        for match in _PRINTED.finditer(ctx.text):
            group = next(g for g in range(1, 4) if match.group(g) is not None)
            spans.append((match.start(group), match.end(group), "string"))
    if "<<" in ctx.text:
        for match in _HEREDOC.finditer(ctx.text):
            spans.append((match.start(2), match.end(2), "string"))
    for kind in ("tool", "string"):
        chosen = sorted({(a, b) for a, b, k in spans if k == kind})
        if kind == "string":
            tools = [(a, b) for a, b, k in spans if k == "tool"]
            chosen = [(a, b) for a, b in chosen if not any(x <= a < y for x, y in tools)]
        if not chosen:
            continue
        parts, pieces, length = [], [], 0
        for start, end in chosen:
            if length > _MAX_STRINGS:
                break
            pieces.append((length, start))
            parts.append(ctx.text[start:end])
            length += end - start + len(_SEPARATOR)
        label = "A tool description" if kind == "tool" else "Text the script shows the model"
        _report(ctx, add, _Text(ctx, _SEPARATOR.join(parts), pieces), kind, label)


def _folded(ctx: Context, add: Add, folded: str) -> None:
    """Takeovers that only read as such once look-alike letters are folded: only the lines folding changed are
    judged (joined, each mapped back to its line), and a line whose own text already says the same is skipped."""
    lines, new_lines = ctx.text.split("\n"), folded.split("\n")
    if len(lines) != len(new_lines):
        return
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    changed = [k for k, (old, new) in enumerate(zip(lines, new_lines, strict=True)) if old != new][:500]
    if not changed:
        return
    pieces, parts, length = [], [], 0
    for k in changed:
        pieces.append((length, starts[k]))
        parts.append(new_lines[k])
        length += len(new_lines[k]) + 1
    text = _Text(ctx, "\n".join(parts), pieces)
    plain = _Text(ctx, "\n".join(lines[k] for k in changed), pieces)
    seen_plain = {(rule, plain.ctx.text.count("\n", 0, index)) for rule, index, _, _ in _hits(plain, "hidden")}
    for rule, index, what, family in _hits(text, "hidden"):
        number = text.ctx.text.count("\n", 0, index)
        if (rule, number) in seen_plain:
            continue
        at = starts[changed[number]] + min(index - text.ctx.text.rfind("\n", 0, index) - 1, len(lines[changed[number]]))
        add("security-prompt-injection" if family != "conceal" else "security-concealment",
            WARNING if precision.taught_lookalike(ctx, at, _taught) else ERROR,
            starts[changed[number]], f"Written with look-alike letters (Cyrillic, Greek, fullwidth or invisible "
            f"characters mixed into Latin text), this line {what}: \"{text.ctx.sentence(index).strip()[:100]}\".",
            _FIX[family])


__all__ = ["scan", "_URL"]
