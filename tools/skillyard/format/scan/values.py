"""The security scan over every text value of a YAML document: SKILL.md's frontmatter and skill.yaml.

The description is the one field every agent puts in its index, so a pipe-to-shell or a credential path there
reaches more models than the same text in a body. Scanning the raw YAML is not enough either: a quoted value can
spell its text with escapes (`c\\x75rl`), and a folded one joins lines the raw-text rules read one at a time. So each
parsed value -- nested values, list items and keys too -- goes through `security.scan_text` (whatever rules it
holds), and each finding names the file, the value's line and its field path (`metadata.note`, `inputs[0].description`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate

from skillyard.format.findings import Finding, Severity
from skillyard.format.scan import judge as security

# Reported for the whole frontmatter or skill.yaml by the YAML readers, raw and escaped alike (control-character,
# invisible-unicode): a second finding per value would only repeat them.
ALREADY_CHECKED = frozenset({"security-control-character", "security-invisible-unicode"})
SEPARATOR = "\n;\n"
# A frontmatter hook (`hooks.PreToolUse[0].hooks[0].command`): Claude Code runs it without asking anyone.
_HOOK_PATH = re.compile(r"(?:^|\.)hooks(?:\.|\[|\Z)")
_RUNS_BY_ITSELF = frozenset({"security-pipe-to-shell", "security-download-exec", "security-exfiltration",
                             "security-obfuscated-exec", "security-reverse-shell", "security-persistence"})


def iter_texts(value: object, path: str = ""):
    """(field path, text, is_key) for every string key and value of parsed YAML, depth first in document order."""
    if isinstance(value, str):
        yield path, value, False
    elif isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            if isinstance(key, str):
                yield child, key, True
            yield from iter_texts(item, child)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from iter_texts(item, f"{path}[{index}]")


def scan_values(data: object, file: str, yaml_text: str, *, first_line: int, key_lines: dict[str, int],
                covered: list[Finding] = ()) -> list[Finding]:
    """Security findings for every text value of `data`, parsed from `yaml_text`, which starts on line `first_line`
    of `file`. `key_lines` (file lines of the top-level keys) places a value when its own line cannot be found;
    `covered` holds the findings of a raw-text scan of the same lines, which a value's finding would repeat."""
    texts = list(iter_texts(data))
    if not texts:
        return []
    # One scan over all values, each mapped back by its first line: a frontmatter holds dozens of short values, and
    # one call costs what one value would. Between two values stands a line holding only `;`, which neither a
    # line-bound rule nor a `\s+` (`bash <(curl`) reads across.
    starts = list(accumulate((text.count("\n") + 2 for _, text, _ in texts[:-1]), initial=1))
    joined = SEPARATOR.join(text for _, text, _ in texts)
    found: list[tuple[str, bool, Finding, int]] = []
    summaries: list[Finding] = []
    for finding in security.scan_text(joined, file):
        if finding.rule in ALREADY_CHECKED:
            continue
        if finding.line is None:  # "N more findings are not listed"
            summaries.append(finding)
            continue
        index = bisect_right(starts, finding.line) - 1
        path, _, is_key = texts[index]
        found.append((path, is_key, finding, finding.line - starts[index] + 1))
    if not found:
        return summaries
    spans = _spans(yaml_text)
    raw = {(f.rule, f.line) for f in covered if f.file == file}
    out = []
    for path, is_key, finding, inner in found:
        span = spans.get((path, is_key))
        if span is not None:
            start, end, literal = span[0] + first_line, span[1] + first_line, span[2]
            line = start + (inner if literal else 0)  # a `|` block's text starts a line below its indicator
            if any((finding.rule, n) in raw for n in range(start, end + 1)):
                continue  # the raw text of these lines already shows it
        else:
            line = key_lines.get(path.split(".")[0].split("[")[0])
        where = "key" if is_key else "value"
        severity, message = finding.severity, finding.message
        if _HOOK_PATH.search(path) and finding.rule in _RUNS_BY_ITSELF and not finding.is_error:
            severity = Severity.ERROR  # a hook's command runs on its own: no reader sees a "vendor installer" run
            message += " It is a hook's command: the agent runs it by itself, with nobody reading it first."
        out.append(Finding(finding.rule, severity, f"The {where} of `{path}`: {message}",
                           finding.fix, file, line, path, digest=finding.digest))
    return out + summaries


def _spans(yaml_text: str) -> dict[tuple[str, bool], tuple[int, int, bool]]:
    """{(field path, is_key): (first line, last line, literal block)} with 0-based lines, from the node graph. Runs
    only when a value has findings, on text the bounded loader has already accepted; {} when it does not compose
    again (a frontmatter read after repairing unquoted colons): the top-level key's line is used then."""
    import yaml

    try:
        root = yaml.compose(yaml_text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return {}
    spans: dict[tuple[str, bool], tuple[int, int, bool]] = {}
    stack = [(root, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, yaml.MappingNode):
            for key, item in node.value:
                child = f"{path}.{key.value}" if path else str(key.value)
                spans[(child, True)] = (key.start_mark.line, key.end_mark.line, False)
                stack.append((item, child))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, f"{path}[{index}]") for index, item in enumerate(node.value))
        elif isinstance(node, yaml.ScalarNode):
            end = node.end_mark.line - (1 if node.end_mark.column == 0 and node.end_mark.line > node.start_mark.line
                                        else 0)
            spans[(path, False)] = (node.start_mark.line, end, node.style == "|")
    return spans
