"""Sound gates in front of the scanner's costly steps: a step runs only on a file that holds what it needs to fire.

Most files trigger nothing, and most of a scan's cost is a step searching a file for text it will not find. So each
costly step declares, next to its patterns, a `Trigger`: the literal words without which none of its patterns can
match. A trigger is a list of alternatives, each a list of needs, and a file passes when, for some alternative, it
meets every need: "(ignore or forget) and (instructions or rules)" is `Trigger("name", (VERBS, NOUNS))` with
`VERBS = _words("ignore", "forget")`. A word set is met by lowercase whole words as `Context` splits them (runs of
ASCII letters, digits and `_`), tested against the set of the file's words `Context` already built: a few set tests
and no search of the text. A `Bytes` need is met by any of its byte strings occurring anywhere (a search, so after
the word sets of its alternative). `Context.may_hold` follows the same switch and fold rule.

Soundness is the whole point: a trigger may only skip a step whose findings would be empty. A word belongs in a set
only when every match of the alternative it guards holds it as a whole word (`\\bignore\\b`, or bounded by spaces or
punctuation inside the pattern); a pattern piece like `delet\\w*` or `apply` followed by nothing has no whole word and
must gate on another part of the match. Two cases are never gated: the switch below is off, or the text holds one of
the few non-ASCII letters that IGNORECASE matching folds onto an ASCII one (`İ`, `ı`, `ſ`, the Kelvin sign), which
`Context`'s ASCII word split cannot see.

Switch: `SKILLYARD_SCAN_GATES=0` in the environment (read at import; tests flip `ENABLED`) runs every gated step on
every file. tests/format/test_scan_gates.py checks that the findings are the same both ways over the committed
labelled sets and generated text, so a pattern alternative added without its words shows up there.

For a rule writer: declare `MY_TRIGGER = Trigger("my-rule", (words_a, words_b), (words_c,))` beside the pattern
(word sets from `context._words`), start the step with `if not MY_TRIGGER.fires(ctx): return`, and when you add an
alternative to the pattern, add the words it needs to the trigger (or a new alternative). When in doubt, add a word
to a set, or drop a set from an alternative: a looser trigger only costs time, a tighter one loses findings.
"""

from __future__ import annotations

import os
import re

ENABLED = os.environ.get("SKILLYARD_SCAN_GATES", "1") != "0"

# The UTF-8 bytes of the non-ASCII letters Python's IGNORECASE matches to ASCII letters: U+0130 and U+0131 (`i`),
# U+017F (`s`) and U+212A (`k`). A text holding one is never gated (its ASCII word split would miss a match).
FOLDS_TO_ASCII = (b"\xc4\xb0", b"\xc4\xb1", b"\xc5\xbf", b"\xe2\x84\xaa")


def folds_to_ascii(raw: bytes) -> bool:
    """Whether `raw` holds a letter IGNORECASE folds onto ASCII (see `FOLDS_TO_ASCII`); ASCII text never does. Each
    mark's lead byte is looked for first (one `memchr`): `\\xc4` and `\\xc5` are rare outside Central European text."""
    if raw.isascii():
        return False
    return (b"\xc4" in raw and (b"\xc4\xb0" in raw or b"\xc4\xb1" in raw)) or \
        (b"\xc5" in raw and b"\xc5\xbf" in raw) or b"\xe2\x84\xaa" in raw


# Search needles (`Context.finditer`'s `words`) whose pattern lets a word at the needle's edge run on into a longer
# word: `obedezc` (obedezcas), `follow` (followed: `follow\w*`), `approved` (preapproved), `http` (`xhttps://`),
# `_history` (`.zsh_history` is one word), `<system` (`<system_prompt>`), `.mcp.json` (no `\b` after it). A
# needle counts as absent only when it cannot occur, so these are never gated on a whole word at their edge, only
# on a word inside them bounded on both sides (`must not notice` -> `not`), or, having none, always looked for
# (`context._token_of`). tests/format/test_scan_gate_stems.py generates each rule's matches (hypothesis
# `from_regex`) and fails on a needle missing here; with `nc `, `curl` and such in code_flows (a byte search there).
STEMS = frozenset({
    # takeover.py
    "follow", "obey", "obedezc", "n’ob", "n'ob", "must not notice", "approved", "authorised", "authorized",
    # rules.py: injection, concealment, secrets, environment, index flags, decoding
    "supersede", "no longer", "apply", "invalid", "revoked", "tell", "inform", "notify", "alert", "_history",
    "history", "keychain", "keychains", "environ", "pip_extra_index_url", "base64", "frombase64string",
    # phrases.py: other languages' nouns, conversation markers, agent configuration files
    "instruktionen", "anwender", "benutzer", "nutzer", "utilisateur", "conferma", "confirmacao", "confirmation",
    "authorization", "permiso", "erlaubnis", "</system", "<system", "_of_turn>", ".cursorrules", ".mcp.json",
    # exec_flows.py, lures.py: fetches and URLs
    "fetch(", "http", "https", "ftp",
    # found by the generated matches in a second pass (takeover, prose, rules, phrases)
    ".clinerules", ".windsurfrules", "anweisungen", "authorisation", "authority", "bestaetigung", "bestätigung",
    "cancel", "confirmacion", "consent", "consented", "instruction>", "instructions>", "objects", "obsolete",
    "permesso", "permissao", "pip_index_url", "index-url", "regeln", "richtlinien", "rueckfrage", "secret",
    "to yourself", "usuario", "usuarios", "utente", "utenti", "zustimmung", "approval", "hidden", "outdated",
    "permission", "rückfrage", "void", "refuses", "disagrees", "declines", "says no",
    # found by the generated matches in a third pass (rules: `Microsoft.PowerShell_profile.ps1`)
    "profile",
    # exec_flows.py's archive lure (`passwords: infected`, `pass: 1234`), once the switch reached its gates
    "password", "passcode", "pass:",
})


# The ASCII stems, lowercase bytes. `Context.stem_has` asks whether one occurs in a file's bytes in any ASCII case:
# with `hyperscan` (a multi-literal matcher, x86-64 Linux: pyproject.toml) one pass finds every stem a file holds
# (`stems_in`: ~60 times cheaper than an `in` per stem over the real folders, README "Dependencies, and why each");
# without it each stem is one cached `in`. The two give the same answer (tests/format/test_scan_gate_stems.py).
ASCII_STEMS = tuple(sorted(s.encode() for s in STEMS if s.isascii()))
# What the one-pass matcher looks for: the stems, and the byte needles `Context.may_hold` and `low_has` are asked
# about (added on first use, `literals`; the matcher is then built again, once per new tuple).
_LITERALS: dict[bytes, None] = dict.fromkeys(ASCII_STEMS)
try:
    import hyperscan as _hyperscan
except ImportError:  # pragma: no cover - the platforms without a wheel
    _hyperscan = None
_matcher: list = []  # [database, per-thread scratch, literals, their set], built on first use (import stays cheap)
USE_MATCHER = True  # tests turn it off to compare with the `in` per stem


_ASKED_TUPLES: dict[int, tuple] = {}  # needle tuple id -> (it, its set), for `covered` (module-level tuples)
# Each stem's shorter stems that it holds (`usuarios` -> `usuario`, `https` -> `http`): absent when one of them is.
_CORES = {s.encode(): tuple(c.encode() for c in STEMS if c != s and c in s) for s in STEMS if s.isascii()}


def stem_found(ctx, stem: bytes) -> bool:
    """`Context.stem_has` on a first ask: the file's matcher pass (`stems_in`, once per file), else one `in` on the
    bytes ASCII-lowered (a stem holding a shorter one found absent is absent without it); cached in the context."""
    if ctx._stems is None:
        ctx._stems = stems_in(ctx.raw) or False
    if ctx._stems is not False and stem in ctx._stems[1]:
        known = stem in ctx._stems[0]
    else:
        if ctx._low_bytes is None:
            ctx._low_bytes = ctx.raw.lower()
        known = all(ctx.stem_has(core) for core in _CORES.get(stem, ())) and stem in ctx._low_bytes
    ctx._low_found[stem] = known
    return known


def covered(needles: tuple[bytes, ...], by: frozenset[bytes]) -> bool:
    """Whether the matcher pass `by` looked for every one of `needles` (then one set test answers for them all)."""
    known = _ASKED_TUPLES.get(id(needles))
    if known is None or known[0] is not needles:
        known = _ASKED_TUPLES[id(needles)] = (needles, frozenset(needles))
    return known[1] <= by


def literals(needles: tuple[bytes, ...]) -> None:
    """Have the matcher find these lowercase ASCII byte needles too (from the next file on): `Bytes` made at
    import, so the matcher is built once."""
    new = [n for n in needles if n not in _LITERALS and n.isascii() and n == n.lower() and n]
    if new:
        _LITERALS.update(dict.fromkeys(new))
        _matcher.clear()


def _build_matcher() -> list:
    """The matcher for `_LITERALS`, kept between runs (recache.stored: named by a digest of the needles, the flags,
    hyperscan's version and the machine) and checked on load: each needle, alone in the text, is found."""
    import hashlib
    import platform
    import threading

    from skillyard import recache

    found = tuple(_LITERALS)
    flags = _hyperscan.HS_FLAG_SINGLEMATCH | _hyperscan.HS_FLAG_CASELESS  # each needle reported once, ASCII case

    def make():
        database = _hyperscan.Database(mode=_hyperscan.HS_MODE_BLOCK)
        database.compile(expressions=[re.escape(s) for s in found], ids=list(range(len(found))),
                         elements=len(found), flags=[flags] * len(found))
        return database

    def check(database) -> bool:
        seen: set[int] = set()
        database.scan(b"\n".join(found), match_event_handler=lambda at, *_: seen.add(at),
                      scratch=_hyperscan.Scratch(database))  # (a loaded database has none of its own)
        return len(seen) == len(found)

    digest = hashlib.sha256(repr((found, flags, _hyperscan.__version__, platform.machine())).encode()).hexdigest()
    database = recache.stored(f"hyperscan-matcher.{digest[:24]}.db", make, _hyperscan.dumpb,
                              lambda blob: _hyperscan.loadb(blob, mode=_hyperscan.HS_MODE_BLOCK), check)
    _matcher[:] = [database, threading.local(), found, frozenset(found)]
    return _matcher


def stems_in(raw: bytes) -> tuple[frozenset[bytes], frozenset[bytes]] | None:
    """(the needles of the matcher that occur in `raw` in any ASCII case, the needles it looked for), found in one
    pass; None without `hyperscan` (then `Context.stem_has` asks each needle with `in`)."""
    if _hyperscan is None or not USE_MATCHER:
        return None
    database, local, needles, covered = _matcher or _build_matcher()
    if getattr(local, "database", None) is not database:
        local.scratch, local.database = _hyperscan.Scratch(database), database
    found: set[int] = set()
    database.scan(raw, match_event_handler=lambda at, start, end, flags, context: found.add(at),
                  scratch=local.scratch)
    return frozenset(needles[at] for at in found), covered


class Bytes(tuple):
    """A need met by any of these byte strings occurring in the file: as written (`Bytes(..., lowered=False)`,
    case-sensitive, for a pattern without IGNORECASE) or in the file's bytes with ASCII lowered (lowercase needles,
    for an IGNORECASE pattern). For pattern pieces that are not whole words (`\\.cursorrules` may run on into
    `.cursorrulesx`); each search costs a pass over the file, so words come first."""

    lowered: bool

    def __new__(cls, *needles: bytes, lowered: bool = True):
        made = super().__new__(cls, dict.fromkeys(needles))
        made.lowered = lowered
        if lowered:  # (made at import: the matcher, built on the first scan, looks for them too)
            literals(made)
        return made


class Trigger:
    """The words without which a step cannot fire: any one alternative, each a tuple of needs all of which the
    file must meet; a need is a word set (from `context._words`) or `Bytes` (see the module docstring)."""

    __slots__ = ("name", "alternatives")

    def __init__(self, name: str, *alternatives: tuple[frozenset[bytes] | Bytes, ...]):
        self.name = name
        # within an alternative the set tests go first: a byte search is asked only when they all pass
        self.alternatives = tuple(tuple(sorted(alternative, key=lambda need: isinstance(need, Bytes)))
                                  for alternative in alternatives)

    def fires(self, ctx) -> bool:
        """Whether the step may report anything in `ctx` (always, with the gates off)."""
        if not ENABLED or ctx.folds:
            return True
        words = ctx.words
        for alternative in self.alternatives:
            for need in alternative:
                if isinstance(need, Bytes):
                    if not (ctx.low_has(need) if need.lowered else ctx.raw_has(need)):
                        break
                elif words.isdisjoint(need):
                    break
            else:
                return True
        return False


# The anchored gates `Context.gate` asks (each pattern starts with one literal character, so the regex engine
# skips between candidates at C speed).
_DOT_GATE = re.compile(r"\.(?:ssh|aws|kube|gnupg|netrc|npmrc|pypirc|git-credentials|docker|config|ethereum|bitcoin|"
                       r"electrum|env|bashrc|zshrc|zprofile|zshenv|profile|bash_profile|bash_login)\b")
_UNDERSCORE_GATE = re.compile(r"_(?:rsa|ed25519|ecdsa|dsa|keys)\b")
PATTERNS = {
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
