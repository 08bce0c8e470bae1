#!/usr/bin/env python3
"""Check the relative links and #anchors in a folder of Markdown files, offline.

Finds inline links and images, reference-style links and definitions, and HTML href/src attributes; ignores
fenced and inline code. A link is broken when its file does not exist (inside the checked root), when its
#anchor matches no heading in the target, or when a reference label is undefined. External URLs are listed,
never fetched. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import unicodedata
from pathlib import Path
from urllib.parse import unquote, urlsplit

INLINE = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REF_USE = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\[\]]*\])+)\]\[([^\]]*)\]")
REF_DEF = re.compile(r"^ {0,3}\[([^\]]+)\]:\s*(<[^>]*>|\S+)", re.M)
HTML_ATTR = re.compile(r"""\b(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
HTML_ID = re.compile(r"""\b(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
ATX = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
SCHEMES = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
MD_SUFFIXES = (".md", ".markdown", ".mdx")


def strip_code(text: str) -> list[str]:
    """The file's lines with fenced blocks blanked and inline code spans replaced by spaces (line numbers kept)."""
    out, fence = [], None
    for line in text.split("\n"):
        match = FENCE.match(line)
        if fence:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            out.append("")
            continue
        if match:
            fence = match.group(1)
            out.append("")
            continue
        out.append(INLINE_CODE.sub(lambda m: " " * len(m.group()), line))
    return out


def slugify(heading: str) -> str:
    """GitHub-style anchor: lowercase, drop punctuation except - and _, spaces to hyphens."""
    heading = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # keep link text only
    heading = re.sub(r"<[^>]+>", "", heading).strip().lower()
    kept = "".join(ch for ch in heading if ch in " -_" or unicodedata.category(ch)[0] in "LNM")
    return kept.replace(" ", "-")


def anchors_of(text: str) -> set[str]:
    """Every anchor a Markdown file offers: heading slugs (deduplicated as -1, -2, ...) and HTML ids."""
    anchors: set[str] = set()
    counts: dict[str, int] = {}
    lines = strip_code(text)
    for index, line in enumerate(lines):
        heading = None
        match = ATX.match(line)
        if match:
            heading = match.group(2)
        elif index and SETEXT.match(line) and lines[index - 1].strip() and not lines[index - 1].startswith((" " * 4, "\t")):
            heading = lines[index - 1].strip()
        if heading is not None:
            slug = slugify(heading)
            n = counts.get(slug, 0)
            counts[slug] = n + 1
            anchors.add(slug if n == 0 else f"{slug}-{n}")
        for match in HTML_ID.finditer(line):
            anchors.add(match.group(1) or match.group(2) or "")
    return anchors


def links_of(text: str) -> tuple[list[tuple[int, str, str]], list[tuple[int, str]]]:
    """(line, kind, target) for every link, and (line, label) for undefined reference labels."""
    lines = strip_code(text)
    definitions = {m.group(1).strip().lower(): m.group(2).strip("<>") for m in REF_DEF.finditer("\n".join(lines))}
    links, undefined = [], []
    for number, line in enumerate(lines, start=1):
        definition = REF_DEF.match(line)
        if definition:
            links.append((number, "definition", definition.group(2).strip("<>")))
            continue
        for match in INLINE.finditer(line):
            links.append((number, "image" if match.group(1) else "link", match.group(3).strip("<>")))
        for match in REF_USE.finditer(line):
            label = (match.group(3) or match.group(2)).strip().lower()
            if label not in definitions:
                undefined.append((number, label))
        for match in HTML_ATTR.finditer(line):
            links.append((number, "html", match.group(1) if match.group(1) is not None else match.group(2)))
    return links, undefined


class Checker:
    def __init__(self, root: Path, check_anchors: bool = True) -> None:
        self.root = root.resolve()
        self.check_anchors = check_anchors
        self._anchors: dict[Path, set[str]] = {}

    def anchors(self, path: Path) -> set[str]:
        if path not in self._anchors:
            self._anchors[path] = anchors_of(path.read_text(encoding="utf-8", errors="replace"))
        return self._anchors[path]

    def check_file(self, path: Path) -> tuple[list[dict], list[dict]]:
        text = path.read_text(encoding="utf-8", errors="replace")
        rel = path.relative_to(self.root).as_posix()
        links, undefined = links_of(text)
        problems = [{"file": rel, "line": n, "target": f"[{label}]", "problem": "undefined reference label"}
                    for n, label in undefined]
        external = []
        for number, _kind, target in links:
            if not target:
                problems.append({"file": rel, "line": number, "target": target, "problem": "empty link target"})
                continue
            if SCHEMES.match(target) or target.startswith("//"):
                if target.lower().startswith(("http:", "https:", "//")):
                    external.append({"file": rel, "line": number, "target": target})
                continue
            problem = self.check_target(path, target)
            if problem:
                problems.append({"file": rel, "line": number, "target": target, "problem": problem})
        return problems, external

    def check_target(self, source: Path, target: str) -> str | None:
        parts = urlsplit(target)
        file_part, anchor = unquote(parts.path), unquote(parts.fragment)
        if not file_part:
            dest = source
        elif file_part.startswith("/"):
            dest = self.root / file_part.lstrip("/")
        else:
            dest = source.parent / file_part
        dest = Path(os.path.normpath(dest))
        if os.path.commonpath([self.root, dest]) != str(self.root):
            return "points outside the checked folder"
        if not dest.exists() or (file_part and not _exact_case(dest, self.root)):
            actual = _case_insensitive_match(dest, self.root)
            if actual:
                return f"letter case differs from the file on disk ({actual}); breaks on case-sensitive systems"
            return "file not found"
        if (anchor and self.check_anchors and dest.is_file() and dest.suffix.lower() in MD_SUFFIXES
                and anchor not in self.anchors(dest) and anchor.lower() not in self.anchors(dest)):
            return f"no heading or id matches #{anchor}"
        return None


def _exact_case(path: Path, root: Path) -> bool:
    current = root
    for part in path.relative_to(root).parts:
        if part not in os.listdir(current):
            return False
        current = current / part
    return True


def _case_insensitive_match(path: Path, root: Path) -> str | None:
    """The real relative path that differs from `path` only in letter case, if there is one."""
    current = root
    for part in path.relative_to(root).parts:
        try:
            names = os.listdir(current)
        except OSError:
            return None
        exact = [n for n in names if n == part] or [n for n in names if n.lower() == part.lower()]
        if not exact:
            return None
        current = current / exact[0]
    return current.relative_to(root).as_posix()


def markdown_files(root: Path) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("node_modules", "site", "_build"))
        found += [Path(folder) / f for f in sorted(files) if f.lower().endswith(MD_SUFFIXES)]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check relative links and anchors in Markdown files (offline).",
                                     epilog="example: md_links.py docs --json")
    parser.add_argument("root", nargs="?", default=".", help="folder (or one Markdown file) to check; default .")
    parser.add_argument("--no-anchors", action="store_true", help="do not check #anchors")
    parser.add_argument("--list-external", action="store_true", help="also list external http(s) links (not fetched)")
    parser.add_argument("--json", action="store_true", help="print a JSON report")
    args = parser.parse_args(argv)
    start = Path(args.root)
    if not start.exists():
        print(f"error: {args.root} does not exist", file=sys.stderr)
        return 2
    root = start if start.is_dir() else start.parent
    files = markdown_files(root) if start.is_dir() else [start]
    checker = Checker(root, check_anchors=not args.no_anchors)
    problems, external = [], []
    for path in files:
        found, links = checker.check_file(path.resolve())
        problems += found
        external += links
    if args.json:
        report = {"root": str(root), "files_checked": len(files), "broken": problems}
        if args.list_external:
            report["external"] = external
        json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        for p in problems:
            print(f"{p['file']}:{p['line']}: {p['target']}: {p['problem']}")
        if args.list_external:
            for e in external:
                print(f"{e['file']}:{e['line']}: external (not checked): {e['target']}")
        print(f"{len(files)} file(s) checked, {len(problems)} broken link(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
