"""Download-and-run told in words: prose that sends the reader to a program's address and tells them to run it.

2026's registry campaigns rarely put the download in a script: the skill's "Prerequisites" say "download the helper
from <link>, open it, and if macOS refuses, right-click > Open", or "fetch <url>.sh, make it executable and execute
it". A pipe-to-shell rule never sees that. This rule reads each paragraph that names an address of a runnable file
(an installer, a script, an archive) together with a verb that runs it, and blocks it when the paragraph also
presents the step as required, tells the reader to get past the system's warnings, or spells out the make-it-
executable step -- unless the address is the vendor's own (a known installer host, or the product the skill is
about). Trigger tokens: `://` and one of the run verbs below on the file's words.
"""

from __future__ import annotations

import re

from skillyard.format.scan import pattern_gate, prose_exfil, takeover
from skillyard.format.scan.context import ERROR, Add, Context, _host_is_vendor, _words
from skillyard.format.scan.precision import known_vendor_url

RULE = "security-download-exec"
# An address whose last path segment is a program, a script or an archive of one.
_RUNNABLE_URL = re.compile(r"(?:https?|ftp)://[^\s'\"`)>\]]+?\.(?:exe|msi|dmg|pkg|sh|bash|ps1|psm1|bat|cmd|scr|jar|"
                           r"appimage|command|run|bin|vbs|hta|zip|7z|rar|tgz|tar\.gz|deb|rpm|apk)(?=[\s'\"`)>\],.;:!?]|\Z)",
                           re.I)
_RUN_VERB = re.compile(r"\b(?:run|runs|launch|open|execute|double-click|start|install|make it executable|chmod)\b",
                       re.I)
# The step presented as something the reader must get past the system's defences for.
_EVASION = re.compile(r"gatekeeper|com\.apple\.quarantine|xattr\s+-[a-z]*d|right-click\s*(?:>|→|and)?\s*open|"
                      r"unidentified developer|(?:allow|run|open) anyway|smartscreen|more info\s*(?:>|→|and)\s*run|"
                      r"(?:disable|turn off|pause)\s+(?:\w+\s+){0,2}(?:antivirus|defender|real-time protection|"
                      r"firewall|edr)|(?:antivirus|defender)\s+(?:\w+\s+){0,3}(?:false positive|flag)|"
                      r"make (?:it|the file|them) executable|chmod\s+\+x|mark (?:it|the file) as executable",
                      re.I)
_REQUIRED = re.compile(r"\b(?:prerequisites?|required|requires|must (?:first )?(?:download|install|run)|before (?:you |"
                       r"first |using|use)|will not work|won't work|otherwise|first)\b", re.I)
_EXTENSIONS = re.compile(rb"\.(?:exe|msi|dmg|pkg|sh|bash|ps1|psm1|bat|cmd|scr|jar|appimage|command|run|bin|vbs|hta|zip|"
                         rb"7z|rar|tgz|gz|deb|rpm|apk)\b", re.I)  # one pass over the bytes: an address may name one
_TRIGGERS = _words("run", "runs", "launch", "open", "execute", "double", "start", "install", "executable", "chmod")


def told(ctx: Context, add: Add) -> None:
    """The behaviours text tells its reader to carry out: download-and-run, data theft (`prose_exfil`) and handing
    the agent over (`takeover`)."""
    prose_lure(ctx, add)
    prose_exfil.prose_exfil(ctx, add)
    takeover.takeover(ctx, add)


def prose_lure(ctx: Context, add: Add) -> None:
    """Report the first paragraph of prose that tells its reader to download a program from a foreign address and
    run it, presented as required or with the system's warnings to get past."""
    if not ctx.prose or pattern_gate.cannot_match(ctx, _RUNNABLE_URL) or b"://" not in ctx.raw or \
            not (ctx.gates_off or ctx.has(_TRIGGERS)) or not _EXTENSIONS.search(ctx.raw):
        return
    for match in ctx.finditer(_RUNNABLE_URL, ("://",)):
        url = match.group()
        if ctx.negated(match.start()) or known_vendor_url(url) or _host_is_vendor(url, ctx):
            continue
        start, end = ctx.block(match.start(), 3)
        chunk = ctx.text[start:end]
        if not _RUN_VERB.search(chunk):
            continue
        evasion = _EVASION.search(chunk)
        if not (evasion or ctx.lured(match.start()) or _REQUIRED.search(chunk)):
            continue
        why = f"and to get past the system's warnings (`{evasion.group()[:40]}`)" if evasion else \
            "and presents the step as required"
        add(RULE, ERROR, match.start(),
            f"Tells the reader to download `{url[:80]}` and run it, {why}: the program runs unreviewed, from an "
            "address that is not the vendor's.", "Remove the step; ship reviewable source under scripts/ instead.")
        return
