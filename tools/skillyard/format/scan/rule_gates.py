"""Word gates of rules.py's injection and concealment checks, read off each alternative of their patterns (issue 34):
what every match holds as whole words (`gates.Trigger`), so a file without them is skipped and no match is lost
(tests/format/test_scan_gate_stems.py draws matches from each pattern and compares the findings gates on and off)."""

from __future__ import annotations

from skillyard.format.scan import gates
from skillyard.format.scan.context import _words

_CONCEAL_NOT = _words("not", "never", "don", "without", "quietly", "secretly", "covertly")
_SAFETY_KINDS = _words("safety", "security", "content")  # … guidelines … do not apply (`apply` may run on)
_NOT_ANYMORE = _words("not", "don", "longer")
_EARLIER = _words("previous", "prior", "earlier", "original", "system", "other")
_RULE_NOUNS = _words("instruction", "instructions", "guidance", "rules", "prompt")
_ARE_IS = _words("are", "is")

# What each alternative of CONCEAL holds as whole words (a negation and a verb; hide/conceal/keep … from; quietly …):
# `user` is no gate, it runs on (`the users`).
CONCEAL_TRIGGER = gates.Trigger(
    "conceal",
    (_CONCEAL_NOT, _words("tell", "inform", "mention", "reveal", "show", "disclose", "notify", "alert", "report"),
     gates.Bytes(b"user", b"human", b"operator")),  # (they run on: `the users`)
    (_CONCEAL_NOT, _words("mention", "reveal", "disclose")),
    (_words("without"), _words("telling", "informing", "notifying", "asking", "alerting")),
    (_words("hide", "conceal", "keep"), _words("from")),
    (_words("quietly", "secretly", "covertly"),),
)

# The ends of OVERRIDE's "earlier rules are void" and "safety rules do not apply" alternatives, which run on: bytes,
# found in the matcher's pass (a set test).
VOID_STEMS = gates.Bytes(b"outdated", b"void", b"cancel", b"no longer", b"obsolete", b"supersede", b"revoked",
                         b"invalid")
APPLY_STEM = gates.Bytes(b"apply")
