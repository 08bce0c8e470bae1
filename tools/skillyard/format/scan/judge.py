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
        if (title or unused) and not ctx.in_fence(match.start()) and not match.group(1).startswith("^"):
            reason = "its title is never shown" if title else "nothing links to it, so none of it is shown"
            add("security-hidden-comment", Severity.WARNING, match.start(),
                f"A Markdown link reference definition (`[{match.group(1)[:40]}]: …`, as in `[//]: # (…)`) hides "
                f"text: {reason}, while models still read it.",
                "Remove the definition, or use it in a visible link and drop its title.")


# Hidden text addressed to the agent: an order to the assistant, or a step that installs or runs something.
_HIDDEN_ORDER = re.compile(r"\b(?:assistant|agent|model|AI|claude|llm)\b[^.\n]{0,40}\b(?:must|should|ignore|instead|"
                           r"always|never|do not|don't)\b|\b(?:install|download|run|execute|open|curl|wget)\b[^\n]{0,80}"
                           r"(?:https?://|\.exe\b|\.sh\b|\|\s*(?:ba)?sh\b)", re.I)


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
