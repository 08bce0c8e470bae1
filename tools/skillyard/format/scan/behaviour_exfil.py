"""Secrets leaving the machine, judged as a flow: a credential file, or the whole environment, that reaches a
network send, the clipboard, or a file outside the skill."""

from __future__ import annotations

from skillyard.format.scan import flows
from skillyard.format.scan.context import ERROR, WARNING

RULE = "security-exfiltration"
FIX = "Do not read secrets from the user's machine; ask for the one value the skill needs as an input."


def judge(flow: flows.Flow, ctx, report) -> None:
    written = False
    for index, op in enumerate(flow.facts.ops):
        secrets = [s for s in flow.sources[index] if s.kind in ("secret", "env")]
        if not secrets:
            continue
        source = min(secrets, key=lambda s: (s.line, -len(s.what)))  # the first read, named most fully
        where = f" (line {source.line})" if source.line != op.line else ""
        if flows.sends(op) or flows.is_fetch(op) and (op.uses or any("$" in w for w in op.words)) and \
                source.kind != "fetch":
            url = next((w for w in op.words if "://" in w or "@" in w), "")
            to = f" to `{url[:60]}`" if url else ""
            report(RULE, ERROR, op.line, f"The {flow.facts.language} script {source.what}{where} and sends it over "
                   f"the network{to} with `{op.name}`: secrets leave the user's machine.", FIX)
            return
        if op.name in flows.CLIPBOARD or op.full in flows.CLIPBOARD:
            report(RULE, ERROR, op.line, f"The {flow.facts.language} script {source.what}{where} and puts it on the "
                   f"clipboard with `{op.name}`, where any program or a paste carries it off.", FIX)
            return
        if not written:
            for path in flows.writes_to(op):
                if path.startswith(("/", "~", "$HOME", "$TMP", "$env:", "%")) and not path.startswith("/dev/"):
                    report(RULE, WARNING, op.line, f"The {flow.facts.language} script {source.what}{where} and copies "
                           f"it to `{path[:60]}`, outside the skill.", FIX)
                    written = True
                    break
