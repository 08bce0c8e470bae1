"""The patterns `Context.finditer` searches, registered with the one-pass engine (`pattern_gate.searched`): a file
that cannot match one skips it without a needle search. Imported by the judge after every rule module, so the
engine's database is whole before the first file. tests/format/test_scan_pattern_gate.py fails when a searched
pattern is missing here (it then still runs, ungated: only time is lost)."""

from __future__ import annotations

from skillyard.format.scan import (
    exec_flows,
    flows,
    lures,
    pattern_gate,
    phrases,
    prose,
    prose_exfil,
    rules,
    takeover,
)

PATTERNS = (
    exec_flows.REMOTE_RUN, exec_flows.PIP_URL, exec_flows.DOWNLOAD_EXEC, exec_flows._SAVE, exec_flows._ARCHIVE_RUN,
    exec_flows.DECODE_EXEC, lures._RUNNABLE_URL, phrases.REMOTE_ORDER, phrases.AGENT_CONFIG, prose_exfil._BEACON,
    flows.SECRET_PATH, prose_exfil._ENV_FILE, prose_exfil._ENV_DUMP, rules.SECRET_SOURCE, rules.ENV_DUMP,
    rules.SECRET_IMAGE, rules.PERSIST_ALWAYS, rules._RC_WRITE, rules.SAFETY_OFF, rules.OVERRIDE, rules.ROLE_TAG,
    rules.CONCEAL, rules.NPX, rules.INDEX,
    *(family.pattern for family in (*prose._EVERYWHERE, *prose._ENGLISH, prose._TOOL)),
    *(pattern for _, pattern in takeover._FAMILIES),
)
for _pattern in PATTERNS:
    pattern_gate.searched(_pattern)
