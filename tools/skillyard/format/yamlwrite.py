"""Write the portable frontmatter so that every line stays short and every value reads back exactly as it was.

The strict check refuses a frontmatter line over `frontmatter.MAX_LINE_CHARS` characters, so `skill init` and
`skillyard migrate` must never write one: a long value is folded (`key: >-`, the text on indented lines of at most
`WIDTH` characters), and when folding cannot keep the value exactly (a value with trailing spaces, runs of spaces,
characters YAML must escape), PyYAML's own wrapped form is tried. Every candidate is read back with the project's
loader and with PyYAML's safe loader; one that does not give back the same data, or keeps a long line, is never
returned: `FoldError` says which value could not be written.
"""

from __future__ import annotations

import re

from skillyard.format.frontmatter import MAX_LINE_CHARS

WIDTH = 100  # folded lines aim at this many characters; a single longer word may reach MAX_LINE_CHARS
INDENT = 2
_NUMBER_LIKE = re.compile(r"[0-9][0-9A-Za-z.+-]*")
# What a block scalar holds as written: printable characters and `\n`; YAML escapes (or reads as a line break) the
# rest: controls, `\r`, NEL, U+2028/2029, the BOM, surrogates and non-characters.
_UNFOLDABLE = re.compile("[^\n\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
_SPACE_BREAK = re.compile(r"(?<=\S) (?=\S)")  # a single space between two words: a fold turns a break back into it


class FoldError(ValueError):
    """A value no form keeps both exact and in short lines."""

    def __init__(self, key: str, reason: str):
        super().__init__(f"`{key}` {reason}")
        self.key, self.reason = key, reason


def dump_short_lines(spec: dict, *, limit: int = MAX_LINE_CHARS) -> str:
    """Block-style YAML for the standard's keys (strings, and `metadata`'s map of strings) with no line over
    `limit` characters, read back to the same data by both loaders; FoldError otherwise."""
    if not spec:
        return ""
    lines: list[str] = []
    for key, value in spec.items():
        lines += _entry(key, value, 0, limit)
    text = "\n".join(lines) + "\n"
    _check(text, spec, limit)
    return text


def _entry(key: object, value: object, indent: int, limit: int) -> list[str]:
    pad = " " * indent
    head = f"{pad}{_one_line(key)}:"
    if isinstance(value, dict) and value:
        out = [head]
        for sub_key, sub_value in value.items():
            out += _entry(sub_key, sub_value, indent + INDENT, limit)
        return out
    if not isinstance(value, str):
        return _pyyaml_entry(key, value, indent)
    one = _one_line(value)
    if "\n" not in one and len(head) + 1 + len(one) <= limit:
        return [f"{head} {one}"]
    folded = fold(value, indent + INDENT)
    if folded is not None and all(len(line) <= limit for line in folded):
        return [f"{head} >-", *folded]
    wrapped = _pyyaml_entry(key, value, indent, width=WIDTH)
    longest = max(len(line) for line in wrapped)
    if longest > limit:
        raise FoldError(str(key), f"holds a word too long to fit a line of {limit} characters ({longest} with its "
                        "indentation)")
    return wrapped


def fold(value: str, indent: int, width: int = WIDTH) -> list[str] | None:
    """`value` as the content lines of a `>-` block (indented by `indent`), or None when a fold would not read
    back exactly: it must start and end with a word, hold only characters a block keeps as written, and have no
    line (between `\n`s) that starts or ends with white space (those lines YAML keeps unfolded or trims)."""
    if not value or _UNFOLDABLE.search(value) or value[0].isspace() or value[-1].isspace():
        return None
    pad = " " * indent
    out: list[str] = []
    for number, paragraph in enumerate(value.split("\n")):
        if number:
            out.append("")  # each `\n` is one empty line between the text lines of a fold
        if not paragraph:
            continue
        if paragraph[0] in " \t" or paragraph[-1] in " \t":
            return None
        out += [pad + line for line in _wrap(paragraph, width - indent)]
    return out


def _wrap(paragraph: str, width: int) -> list[str]:
    """Break at single spaces between words so each line is at most `width` long (a longer word stays whole)."""
    lines: list[str] = []
    start = 0
    last_break = None
    for match in _SPACE_BREAK.finditer(paragraph):
        if match.start() - start > width and last_break is not None:
            lines.append(paragraph[start:last_break])
            start = last_break + 1
        last_break = match.start()
    if len(paragraph) - start > width and last_break is not None and last_break > start:
        lines.append(paragraph[start:last_break])
        start = last_break + 1
    lines.append(paragraph[start:])
    return lines


def block_dumper(width: float):
    """A PyYAML Dumper writing block style with list items indented under their key, as people write them, and
    number-like strings (`1.2.0`, `1.10`) quoted so no reader takes them for numbers."""
    import yaml

    class Dumper(yaml.SafeDumper):
        def increase_indent(self, flow=False, indentless=False):  # noqa: ARG002 - PyYAML hook
            return super().increase_indent(flow, False)

    def text(dumper, value: str):  # `1.2.0` and `1.10` quoted, so no reader takes them for numbers
        style = '"' if _NUMBER_LIKE.fullmatch(value) else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    Dumper.best_width = width
    return Dumper


def _one_line(value: object) -> str:
    """PyYAML's one-line form of a scalar (a key, or a value as `portable.dump_frontmatter` has always written it)."""
    import yaml

    dumped = yaml.dump(value, Dumper=block_dumper(float("inf")), allow_unicode=True, width=float("inf"))
    return dumped[:-5] if dumped.endswith("\n...\n") else dumped.rstrip("\n")


def _pyyaml_entry(key: object, value: object, indent: int, width: float = float("inf")) -> list[str]:
    import yaml

    dumped = yaml.dump({key: value}, Dumper=block_dumper(width), allow_unicode=True, default_flow_style=False,
                       sort_keys=False, width=width)
    return [" " * indent + line for line in dumped.rstrip("\n").split("\n")]


def _check(text: str, spec: dict, limit: int) -> None:
    """The written text reads back to `spec` with both loaders, and no line is over `limit`."""
    import yaml

    from skillyard.format.yamlload import load_with_lines

    for number, line in enumerate(text.split("\n"), start=1):
        if len(line) > limit:
            raise FoldError(line.split(":")[0].strip() or "?", f"needs a line of {len(line)} characters (line "
                            f"{number}); the limit is {limit}")
    ours = load_with_lines(text)[0]
    theirs = yaml.safe_load(text)
    for key in spec:
        if ours.get(key) != spec[key] or theirs.get(key) != spec[key]:
            raise FoldError(str(key), "does not read back unchanged in short lines")
    if list(ours) != list(spec) or list(theirs) != list(spec):
        raise FoldError(str(next(iter(spec))), "does not read back unchanged in short lines")
