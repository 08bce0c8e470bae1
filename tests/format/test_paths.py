"""The shared path rule (format/paths.py): every stage refuses the same names, for a reason a user can act on."""

from __future__ import annotations

import os
import posixpath
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format.paths import (
    MAX_DEPTH,
    collision_key,
    is_hidden,
    is_metadata,
    path_problem,
    path_set_problems,
    shown,
)

GOOD = ["SKILL.md", "scripts/run.py", "references/api.md", "assets/logo.png", "a/b/c/d.txt", "发票/说明.md",
        ".gitignore", "assets/.env.example", "v1.2/notes.md", "README"]

BAD = {
    "": "empty",
    "/etc/passwd": "absolute",
    "C:/x": "absolute",
    "c:x": "absolute",
    "../x": "climbs out",
    "a/../../x": "climbs out",
    "a/./b": "`.`",
    "a//b": "empty",
    "a/": "empty",
    "x\\..\\y": "U+005C",
    "ok..md": "`..` inside",
    "a/b..": "`..` inside",
    ".git/config": "version-control",
    ".GIT/config": "version-control",
    ".git./config": "dot or space",
    "x/.git/hooks/post-checkout": "version-control",
    "GIT~1/config": "version-control",
    ".gitmodules": "version-control",
    ".gitattributes": "version-control",
    ".lfsconfig": "version-control",
    ".hg/hgrc": "version-control",
    ".svn/entries": "version-control",
    ".bzr/branch": "version-control",
    "_darcs/prefs": "version-control",
    "CVS/Root": "version-control",
    ".jj/repo": "version-control",
    ".envrc": "version-control",
    "skill.lock.json": "bookkeeping",
    "evolution.json": "bookkeeping",
    "a\x00b": "U+0000",
    "a\nb": "U+000A",
    "a\x1bb": "U+001B",
    "con": "Windows reserves",
    "aux.txt": "Windows reserves",
    "dir/LPT1.md": "Windows reserves",
    "ab:c": "U+003A",
    "a\U00018cd6": "U+18CD6",
    "a\ue000": "U+E000",
    "what?.md": "U+003F",
    "name ": "dot or space",
    "name.": "dot or space",
    "e\u0301.md": "decomposed",
    "a\u202eb.md": "U+202E",
    "a\u200bb.md": "U+200B",
    "a\u00adb.md": "U+00AD",
    "a\ufe0fb.md": "U+FE0F",
    "a\U000e0041.md": "U+E0041",
    "a\u3164.md": "U+3164",
    "/".join(["d"] * (MAX_DEPTH + 1)): "levels deep",
    "x" * 256: "longer than",
    "/".join(["y" * 200] * 6): "bytes long",
}


@pytest.mark.parametrize("rel", GOOD)
def test_plain_paths_are_accepted(rel):
    assert path_problem(rel) is None


@pytest.mark.parametrize("rel,why", sorted(BAD.items()))
def test_unsafe_paths_are_refused_with_the_reason(rel, why):
    problem = path_problem(rel)
    assert problem is not None and why in problem, problem


def test_nested_bookkeeping_name_is_an_ordinary_file():
    assert path_problem("references/evolution.json") is None


def test_hidden():
    assert is_hidden(".gitignore") and is_hidden("a/.b/c") and not is_hidden("a/b.c")


def test_case_and_normalisation_collisions():
    problems = dict(path_set_problems(["SKILL.md", "skill.md", "docs/A.md", "docs/a.md", "x.md"]))
    assert set(problems) == {"docs/a.md", "skill.md"}
    assert "letter case" in problems["skill.md"]
    assert collision_key("É.md") == collision_key("é.md")


def test_file_that_is_also_a_folder():
    problems = path_set_problems(["notes", "notes/a.md"])
    assert problems == [("notes", "is a file, but `notes/` is also used as a folder")]
    assert path_set_problems(["Notes", "notes/a.md"])


_component = st.text(st.characters(codec="utf-8"), min_size=1, max_size=12)


@settings(max_examples=400, deadline=None)
@given(st.lists(_component, min_size=1, max_size=MAX_DEPTH + 2))
def test_accepted_paths_stay_inside_and_are_plain(parts):
    rel = "/".join(parts)
    if path_problem(rel) is not None:
        return
    # Accepted: it can never climb out or be absolute, and it is stable under normalisation.
    assert not posixpath.isabs(rel) and not rel.startswith("\\")
    assert posixpath.normpath(rel) == rel
    assert ".." not in rel and "\\" not in rel and "\x00" not in rel
    assert unicodedata.normalize("NFC", rel) == rel
    joined = os.path.normpath(os.path.join("/root/skill", rel))
    assert joined.startswith("/root/skill/")
    assert all(not unicodedata.category(c).startswith(("C", "Zl", "Zp")) for c in rel)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "A", "b", "a/b", "A/B", "c.md", "C.MD"]), max_size=6, unique=True))
def test_set_problems_leave_names_that_fit_one_case_insensitive_folder(paths):
    flagged = {p for p, _ in path_set_problems(paths)}
    kept = [p for p in paths if p not in flagged]
    keys = [collision_key(p) for p in kept]
    assert len(keys) == len(set(keys))
    folders = {collision_key("/".join(p.split("/")[:i])) for p in kept for i in range(1, p.count("/") + 1)}
    assert not folders & set(keys)


@pytest.mark.parametrize("name", [".git", ".GIT", "CVS", "cvs", "_darcs", ".envrc", "git~1", ".git. ", ".gitattributes"])
def test_metadata_names(name):
    assert is_metadata(name)


@pytest.mark.parametrize("name", ["git", "scripts", "cvs.md", "darcs", ".github"])
def test_ordinary_names_are_not_metadata(name):
    assert not is_metadata(name)


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(codec="utf-8", exclude_categories=()), max_size=20) |
       st.binary(max_size=20).map(lambda b: b.decode("utf-8", "surrogateescape")))
def test_shown_is_printable_and_lossless_for_plain_names(rel):
    """A name in a message can never carry a control, invisible or undecodable character."""
    out = shown(rel)
    assert not any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for c in out)
    out.encode("utf-8")  # printable and encodable: safe in a terminal and in JSON
    if path_problem(rel) is None:
        assert out == rel
