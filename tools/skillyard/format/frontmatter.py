"""Split SKILL.md into frontmatter and body, and parse the frontmatter as real authors write it.

Rules: the frontmatter starts the file (a BOM and CRLF line ends are tolerated) and closes at the first line that is
exactly `---`. A `---` inside a block scalar is always indented, so it never closes the frontmatter. Values with an
unquoted `: ` are repaired (lenient) or reported with the repair (strict); the rest of the checks still run on the
repaired data so that an author sees every problem at once.
"""

from __future__ import annotations

import re

from skillyard.format import safety
from skillyard.format.findings import Finding, error, strict_or_warning
from skillyard.format.record import Record
from skillyard.format.yamlload import DuplicateKeyError, YAMLLimitError, YAMLParseError, load_with_lines

MAX_FRONTMATTER_LINES = 200  # registry (strict) style; lenient mode and the runtime only warn
MAX_LINE_CHARS = 500  # registry (strict) style: a longer one-line value is folded with `>-`; lenient mode warns
# The hard bound on one line, in every mode: a size guard, not a format rule. The standard bounds the description
# (1,024 characters) and `compatibility` (500) but not `metadata` values, so the guard sits far above anything a
# standard-valid frontmatter needs; the whole frontmatter is also bounded (yamlload.MAX_BYTES, 64 KiB).
MAX_LINE_CHARS_HARD = 64 * 1024
MIGRATE_FIX = "run `skillyard migrate --to-standard <folder>`, which does it"

# `key: value: more` on one line, value not quoted, not flow, not a block scalar, not an alias/anchor/tag. The lead
# is matched possessively and the value's `: ` found with str methods: the repair runs on hostile text, and a regex
# with two lazy runs and a trailing `\s*$` took seconds on one long line.
_LEAD = re.compile(r"""\s*+(?:-\s++)?[A-Za-z0-9_][\w.-]*+:[ \t]++(?!["'\[{|>&*!#%@`])""")
_COLON_SPACE = re.compile(r":\s")


class Frontmatter(Record):
    """The parsed parts of a SKILL.md file."""

    FIELDS = ("data", "body", "body_line", "key_lines", "findings", "raw", "ok")

    def __init__(self, data: dict, body: str, body_line: int, key_lines: dict[str, int] | None = None,
                 findings: list[Finding] | None = None, raw: str = "", ok: bool = True):
        self.data = data
        self.body = body
        self.body_line = body_line
        self.key_lines = {} if key_lines is None else key_lines
        self.findings = [] if findings is None else findings
        self.raw = raw
        self.ok = ok

    def line_of(self, key: str) -> int | None:
        return self.key_lines.get(key.split(".")[0].split("[")[0])

    def scalar_text(self, key: str) -> str | None:
        """A top-level one-line plain value as written (`description: 2024` gives "2024"): the standard's YAML reads
        every scalar as text where ours types it. None when the key is not on a `key: value` line of its own."""
        line = self.key_lines.get(key)
        lines = self.raw.split("\n")
        if line is None or not 2 <= line < len(lines) + 2:
            return None
        head, colon, value = lines[line - 2].partition(":")
        value = value.split(" #", 1)[0].strip(" \t")
        return value if colon and head == key and value and value[0] not in "\"'|>[{&*!" else None


def normalise_text(text: str) -> str:
    """Drop a leading BOM and turn CRLF/CR line ends into LF."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def split_frontmatter(text: str) -> tuple[str, str, int] | None:
    """Return (frontmatter text, body, body's first line) or None when the file has no frontmatter block.

    The opening line must be exactly `---` (trailing spaces allowed) and the block closes at the next line that is
    exactly `---`. Raises ValueError when the block never closes.
    """
    text = normalise_text(text)
    if not (text.startswith("---\n") or text.rstrip(" \t") == "---" or re.match(r"---[ \t]+\n", text)):
        return None
    first_newline = text.find("\n")
    if first_newline < 0:
        raise ValueError("unclosed")
    position = first_newline + 1
    line_number = 2
    while position <= len(text):
        end = text.find("\n", position)
        line = text[position:] if end < 0 else text[position:end]
        if line.rstrip(" \t") == "---":
            body_start = len(text) if end < 0 else end + 1
            return text[first_newline + 1 : position], text[body_start:], line_number + 1
        if end < 0:
            break
        position = end + 1
        line_number += 1
    raise ValueError("unclosed")


def repair_unquoted_colons(yaml_text: str) -> tuple[str, list[int]]:
    """Quote plain scalar values that contain `: `; returns the new text and the 1-based lines changed."""
    out: list[str] = []
    changed: list[int] = []
    for number, line in enumerate(yaml_text.split("\n"), start=1):
        match = _LEAD.match(line)
        colon = _COLON_SPACE.search(line, match.end()) if match else None
        if colon:
            value = line[match.end():max(len(line.rstrip()), colon.end())].replace("'", "''")
            out.append(f"{line[:match.end()]}'{value}'")
            changed.append(number)
        else:
            out.append(line)
    return "\n".join(out), changed


def parse_skill_md(
    text: str,
    *,
    strict: bool = False,
    file: str = "SKILL.md",
    max_lines: int = MAX_FRONTMATTER_LINES,
) -> Frontmatter:
    """Parse SKILL.md text. Never raises for bad input: problems become findings and `ok` turns False."""
    where = {"file": file}
    try:
        parts = split_frontmatter(text)
    except ValueError:
        return Frontmatter({}, "", 1, findings=[error(
            "frontmatter-unclosed", "The frontmatter opened with `---` on line 1 never closes.",
            "Close it with a line that is exactly `---` before the Markdown body.", line=1, **where)], ok=False)
    if parts is None:
        return Frontmatter({}, normalise_text(text), 1, findings=[error(
            "frontmatter-missing", "SKILL.md does not start with a YAML frontmatter block.",
            "Start the file with `---`, then `name:` and `description:` lines, then `---`.", line=1, **where)], ok=False)
    yaml_text, body, body_line = parts
    findings: list[Finding] = []
    line_count = yaml_text.count("\n")
    if line_count > max_lines:  # the standard has no line limit: a registry style rule (the bounds are in yamlload)
        findings.append(strict_or_warning(
            strict, "frontmatter-too-long", f"The frontmatter has {line_count} lines; a registry allows at most "
            f"{max_lines}.", "Keep only metadata in the frontmatter and move long text into the Markdown body or "
            "references/.", line=1, **where))
    findings += line_length_findings(yaml_text, strict=strict, file=file)
    for line, what in safety.find_control(yaml_text):
        findings.append(error("control-character", f"The frontmatter contains a control character ({what}).",
                              "Delete the character; only tabs and line breaks are allowed.", line=line + 1, **where))
    for line, what in safety.find_invisible(yaml_text):
        findings.append(error("invisible-unicode", f"The frontmatter contains an invisible character ({what}).",
                              "Delete it: invisible characters can hide text from reviewers.", line=line + 1, **where))

    data, key_lines, yaml_findings = _load_yaml(yaml_text, strict=strict, file=file)
    findings.extend(yaml_findings)
    if data is None:
        return Frontmatter({}, body, body_line, findings=findings, raw=yaml_text, ok=False)
    if not isinstance(data, dict):
        findings.append(error("frontmatter-shape", "The frontmatter is not a mapping of `field: value` lines.",
                              "Write one `field: value` per line, starting with `name:` and `description:`.",
                              line=2, **where))
        return Frontmatter({}, body, body_line, findings=findings, raw=yaml_text, ok=False)
    key_lines = {k: v + 1 for k, v in key_lines.items()}  # the YAML starts on file line 2
    # Only an escape (`\x3c`) can produce `<` or `>` that the raw text does not show.
    markup_possible = "<" in yaml_text or ">" in yaml_text or "\\" in yaml_text
    for path, value in safety.iter_strings(data) if markup_possible else ():
        if safety.ANGLE.search(value):
            top = path.split(".")[0].split("[")[0]
            findings.append(strict_or_warning(
                strict, "angle-bracket", f"`{path}` contains `<` or `>`, which could inject markup into prompts and pages.",
                "Remove `<` and `>` (write `[file]` instead of `<file>`).", line=key_lines.get(top), field=path, **where))
    findings += escaped_hidden_findings(data, yaml_text, key_lines, file=file)
    return Frontmatter(data, body, body_line, key_lines, findings, yaml_text,
                       ok=not any(f.is_error for f in findings))


def line_length_findings(yaml_text: str, *, strict: bool, file: str) -> list[Finding]:
    """The first over-long frontmatter line. Over MAX_LINE_CHARS_HARD it is an error in every mode (a size guard);
    over MAX_LINE_CHARS only a registry's style: the standard allows a one-line description of 1,024 characters, so
    lenient mode (and so the runtime) warns and strict mode names the fold that fixes it."""
    if len(yaml_text) <= MAX_LINE_CHARS:
        return []
    first_long: tuple[int, int] | None = None
    for number, line_text in enumerate(yaml_text.split("\n"), start=2):
        if len(line_text) > MAX_LINE_CHARS_HARD:
            return [error("frontmatter-line-too-large", f"Line {number} of the frontmatter has {len(line_text):,} "
                          f"characters; no line may exceed {MAX_LINE_CHARS_HARD:,}.", "Move the long text into the "
                          "Markdown body or a file under references/.", line=number, file=file)]
        if first_long is None and len(line_text) > MAX_LINE_CHARS:
            first_long = number, len(line_text)
    if first_long is None:
        return []
    number, length = first_long
    return [strict_or_warning(
        strict, "frontmatter-line-too-long", f"Line {number} of the frontmatter has {length} characters; a registry "
        f"allows at most {MAX_LINE_CHARS} on one line (the standard allows a longer one-line description).",
        "Fold the value over several lines as a `>-` block (`description: >-`, then the text indented on the next "
        f"lines); {MIGRATE_FIX}.", line=number, file=file)]


def escaped_hidden_findings(data: object, yaml_text: str, key_lines: dict[str, int], *, file: str) -> list[Finding]:
    """Control and invisible characters written as escapes in a quoted string: an error in every mode, like the
    same characters written raw."""
    if "\\" not in yaml_text:  # only an escape produces a character the raw-text checks did not see
        return []
    what = {"control-character": ("a control character", "only tabs and line breaks are allowed"),
            "invisible-unicode": ("an invisible character", "invisible characters can hide text from reviewers")}
    return [error(rule, f"`{path}` holds {what[rule][0]} ({safety.describe_char(char)}), written as an escape.",
                  f"Delete the escape: {what[rule][1]}.", file=file, field=path,
                  line=key_lines.get(path.split(".")[0].split("[")[0]))
            for path, rule, char in safety.hidden_in_values(data)
            if char not in yaml_text]  # written raw, the line checks have already reported it


def _load_yaml(yaml_text: str, *, strict: bool, file: str) -> tuple[object, dict[str, int], list[Finding]]:
    where = {"file": file}
    try:
        data, lines = load_with_lines(yaml_text)
        return data, lines, []
    except YAMLLimitError as exc:  # in every mode: the document is refused before it is built
        return None, {}, [error(exc.rule, exc.message, exc.fix,
                                line=exc.line + 1 if exc.line else 1, **where)]
    except DuplicateKeyError as exc:
        return None, {}, [error("yaml-duplicate-key", f"The key `{exc.key}` appears twice in the frontmatter.",
                                "Keep one of them.", line=exc.line + 1, field=exc.key, **where)]
    except YAMLParseError as exc:
        first_error = exc
    repaired, changed = repair_unquoted_colons(yaml_text)
    if changed:
        try:
            data, lines = load_with_lines(repaired)
        except (YAMLParseError, DuplicateKeyError):
            pass
        else:
            findings = [strict_or_warning(
                strict, "yaml-unquoted-colon", "A value contains `: ` without quotes, which YAML reads as a nested mapping.",
                "Quote the value: `description: \"Use when: ...\"`, or use a `>-` block.", line=n + 1, **where)
                for n in changed]
            return data, lines, findings
    mark = getattr(first_error, "problem_mark", None)
    line = mark.line + 2 if mark is not None else None
    problem = getattr(first_error, "problem", None) or str(first_error).splitlines()[0]
    return None, {}, [error("yaml-syntax", f"The frontmatter is not valid YAML: {problem}.",
                            "Check indentation and quote values that contain `:`, `#`, `[` or `{`.", line=line, **where)]
