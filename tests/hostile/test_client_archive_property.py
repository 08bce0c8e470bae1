"""Property tests for the tar reader (trust issue, acceptance): generated hostile archives — names from a pool of
traversal, metadata, bookkeeping, invisible, device and colliding names; links aimed anywhere; special files; and
plain garbage — are either refused with a SkillyardError or yield only files that the shared path rule accepts,
that are not hidden, and whose links resolved to files inside the skill folder. Never another exception."""

from __future__ import annotations

import io
import tarfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillyard.client import github
from skillyard.errors import SkillyardError
from skillyard.format.paths import is_hidden, path_problem, path_set_problems

TOP = "demo-0123456789abcdef0123456789abcdef01234567"
REF = github.GitHubRef("acme", "demo")

NAMES = [
    "SKILL.md", "skill.md", "Skill.MD", "references/notes.md", "REFERENCES/notes.md", "scripts/run.py",
    "../escape.md", "a/../../escape.md", "/abs.md", ".git/config", ".GIT/hooks/pre-commit", "x/.git/config",
    ".git./config", "GIT~1/config", ".gitmodules", ".gitattributes", ".envrc", ".hg/hgrc", "_darcs/prefs",
    "skill.lock.json", "evolution.json", ".hidden.md", "assets/.env", "con.md", "a\u202eb.md", "a\u200b.md",
    "notes", "notes/inner.md", "dir\\..\\x.md", "ok..md", "e\u0301.md", "C:/x.md", "a" * 300,
]
SKILL_MD = b"---\nname: demo\ndescription: A demo skill.\n---\n\n# Demo\n"

member = st.tuples(
    st.sampled_from(NAMES),
    st.sampled_from(["file", "dir", "sym", "hard", "fifo"]),
    st.sampled_from(NAMES + ["SKILL.md", "/etc/passwd", "../../x", "references"]),
)


def build(members: list[tuple[str, str, str]], fmt: int) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=fmt) as tar:
        skill = tarfile.TarInfo(f"{TOP}/SKILL.md")
        skill.size = len(SKILL_MD)
        tar.addfile(skill, io.BytesIO(SKILL_MD))
        for name, kind, target in members:
            info = tarfile.TarInfo(f"{TOP}/{name}")
            if kind == "file":
                info.size = 3
                tar.addfile(info, io.BytesIO(b"x\n\n"))
                continue
            info.type = {"dir": tarfile.DIRTYPE, "sym": tarfile.SYMTYPE, "hard": tarfile.LNKTYPE,
                         "fifo": tarfile.FIFOTYPE}[kind]
            info.linkname = target if kind == "sym" else (f"{TOP}/{target}" if kind == "hard" else "")
            tar.addfile(info)
    return buffer.getvalue()


def check_outcome(data: bytes) -> None:
    try:
        _folder, files, _commit = github.skill_files(data, REF)
    except SkillyardError as exc:
        assert exc.message  # refused, with a message
        return
    for rel in files:
        assert path_problem(rel) is None, rel
        assert not is_hidden(rel), rel
    assert path_set_problems(files) == []


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(member, max_size=6), st.sampled_from([tarfile.PAX_FORMAT, tarfile.GNU_FORMAT]))
def test_generated_hostile_archives_are_refused_or_yield_only_safe_paths(members, fmt):
    check_outcome(build(members, fmt))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2048))
def test_garbage_is_a_clear_refusal(data):
    check_outcome(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(member, max_size=4), st.integers(0, 4000), st.binary(min_size=1, max_size=8))
def test_corrupted_archives_are_a_clear_refusal(members, offset, noise):
    data = bytearray(build(members, tarfile.PAX_FORMAT))
    offset %= len(data)
    data[offset:offset + len(noise)] = noise
    check_outcome(bytes(data))


def test_a_clean_archive_yields_its_files():
    """The property above is not vacuous: a clean archive passes the reader and reaches the path assertions."""
    _folder, files, _commit = github.skill_files(build([("references/notes.md", "file", "")], tarfile.PAX_FORMAT), REF)
    assert sorted(files) == ["SKILL.md", "references/notes.md"]
    check_outcome(build([("references/notes.md", "file", ""), ("scripts/run.py", "hard", "references/notes.md")],
                        tarfile.GNU_FORMAT))
