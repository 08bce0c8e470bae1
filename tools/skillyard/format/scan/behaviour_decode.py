"""Decode then execute, judged as a flow: a decoder (base64, hex, char codes, decryption) whose output reaches an
evaluator, a shell or a process runner. The decoded text is folded where it is a literal, so what runs is named."""

from __future__ import annotations

from skillyard.format.scan import flows
from skillyard.format.scan.context import ERROR

RULE = "security-obfuscated-exec"


def judge(flow: flows.Flow, ctx, report) -> None:
    for index, op in enumerate(flow.facts.ops):
        how = flows.runs_code(op, flow.child_process)
        if how is None:
            continue
        decoded = [s for s in flow.sources[index] if s.kind == "decode"]
        if not decoded:
            continue
        if how == "shell" and op.words and op.words[0] not in ("-c", "-", "-s") and not op.uses:
            continue  # `bash script.sh` beside a decode: runs a file, not the decoded text
        shown = next((w for w in op.words if w), "")
        spelled = f" (it spells `{shown[:80]}`)" if shown and shown not in op.text else ""
        source = min(decoded, key=lambda s: s.line)
        where = f" (line {source.line})" if source.line != op.line else ""
        report(RULE, ERROR, op.line, f"The {flow.facts.language} script {source.what}{where} and runs the result "
               f"with `{op.name}`{spelled}: reviewers see only the encoding.", "Ship the code in plain text.")
        return
