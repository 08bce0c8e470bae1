"""Decode then execute, judged as a flow: a decoder (base64, hex, char codes, decryption) whose output reaches an
evaluator, a shell or a process runner. The decoded text is folded where it is a literal, so what runs is named."""

from __future__ import annotations

import re

from skillyard.format.scan import flows
from skillyard.format.scan.context import ERROR

RULE = "security-obfuscated-exec"


# What a command built at run time must not spell: a download, a pipe into a shell, a socket shell, a decoder.
_DANGEROUS = re.compile(r"\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-expression|iex|nc|ncat|/dev/tcp|"
                        r"base64\s+-d|frombase64string)\b|\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|\bbash\s+-i\b", re.I)


# Modules that run commands or code: loading one under a name spelled at run time hides what the script can do.
_RUNNING_MODULES = frozenset({"child_process", "vm", "os", "subprocess", "pty", "commands", "builtins", "shelljs",
                              "execa", "cross-spawn", "open3", "kernel", "os/exec", "syscall"})
_HIDDEN_RUNNERS = (flows.CODE_RUNNERS | flows.PROCESS_RUNNERS | {"system", "execsync", "spawnsync"}) - {
    ".", "source", "command", "start", "create", "function", "`", "call"}


def hidden_name(op, language: str) -> str | None:
    """What an op reaches under a name that is not written in its source: a runner (`globalThis['ev'+'al']`,
    `&('I'+'EX')`, `send("sys" + "tem")`, a name built with `-join`) or a module that runs commands
    (`require(['child', 'process'].join('_'))`, `import('node:' + …)`), in words; None for a plain call."""
    if language in ("shell", "python"):
        return None  # their readers name calls by their role (`subprocess.run` is `system`), not their spelling
    low = op.text.lower()
    if op.name == "(built at run time)":
        return "runs a command whose name is built at run time"
    if op.name in _HIDDEN_RUNNERS and op.name not in low and op.full.rsplit(".", 1)[-1] == op.name:
        return f"calls `{op.name}` under a name built at run time"
    if op.name in ("require", "import", "load", "import_module") and op.words and op.words[0]:
        module = op.words[0].lower().removeprefix("node:")
        if module in _RUNNING_MODULES and module not in low:
            return f"loads `{module}` under a name built at run time"
    return None


def judge(flow: flows.Flow, ctx, report) -> None:
    ops = flow.facts.ops
    hidden = sorted((op.line, what) for op in ops if (what := hidden_name(op, flow.facts.language)) is not None)
    if hidden:  # the first line, and on it the first in words: the same finding whatever order the reader gave
        line, what = hidden[0]
        report(RULE, ERROR, line, f"The {flow.facts.language} script {what}: reviewers cannot see what it "
               "runs.", "Call commands and load modules by their literal names.")
        return
    decoded_files: dict[str, int] = {}  # a file a decoder's output was written to -> the decoder's line
    for index, op in enumerate(ops):
        if op.name in (">", ">>") and op.words:
            line_decodes = [s for k, other in enumerate(ops[max(0, index - 6):index + 6])
                            if other.line == op.line for s in flow.sources[max(0, index - 6) + k] if s.kind == "decode"]
            if line_decodes or is_decoded(flow, index):
                decoded_files[op.words[0]] = op.line
        for path in flows.writes_to(op):
            if is_decoded(flow, index):
                decoded_files[path] = op.line
        how = flows.runs_code(op, flow.child_process)
        if how is None:
            continue
        target = flows.run_target(op, flow.child_process)
        written = next((line for path, line in decoded_files.items() if target and flows.same_file(path, target)), None)
        if written is not None:
            report(RULE, ERROR, op.line, f"The {flow.facts.language} script writes decoded text to `{target[:60]}` "
                   f"(line {written}) and runs that file with `{op.name}`: reviewers see only the encoding.",
                   "Ship the code in plain text.")
            return
        built = next((w for w in op.words if w and w not in op.text and _DANGEROUS.search(w)), None)
        if built is not None:
            report(RULE, ERROR, op.line, f"The {flow.facts.language} script builds a command at run time and runs "
                   f"it with `{op.name}` (it spells `{built[:80]}`): the dangerous part is never written out for a "
                   "reviewer.", "Write the command out in plain text.")
            return
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


def is_decoded(flow: flows.Flow, index: int) -> bool:
    return any(s.kind == "decode" for s in flow.sources[index])
