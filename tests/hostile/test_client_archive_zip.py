"""Hostile archives given to `skill install ./x.zip|./x.tar.gz` (issue 13 item 8).

Safe outcome asserted for each: refused with a clear message naming the problem, a non-zero exit, no traceback,
and nothing written anywhere - not in the store, not beside the archive, not outside (a member aiming there).
"""

from __future__ import annotations

import contextlib
import io
import stat
import struct
import tarfile
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.support.fixtures import *  # noqa: F403 - the skill_home and skill_cli fixtures

SKILL = "---\nname: boxed\ndescription: Comes in an archive.\n---\nUse it.\n"
MIB = 1024 * 1024


def zip_bytes(members: list[tuple[str | zipfile.ZipInfo, bytes | str]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members:
            zf.writestr(name, data)
    return buf.getvalue()


def unix_member(name: str, kind: int, perm: int = 0o644) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (kind | perm) << 16
    return info


def lie_about_size(data: bytes, name: str, size: int) -> bytes:
    """Rewrite a member's declared uncompressed size in its local header and central directory entry."""
    buf = bytearray(data)
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo(name)
    struct.pack_into("<I", buf, info.header_offset + 22, size)
    at = bytes(buf).find(b"PK\x01\x02")
    while at != -1:
        name_len = struct.unpack_from("<H", buf, at + 28)[0]
        if bytes(buf[at + 46: at + 46 + name_len]).decode() == name:
            struct.pack_into("<I", buf, at + 24, size)
        at = bytes(buf).find(b"PK\x01\x02", at + 4)
    return bytes(buf)


def tar_gz(members: list[tarfile.TarInfo | tuple[str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for item in members:
            if isinstance(item, tarfile.TarInfo):
                tf.addfile(item)
            else:
                info = tarfile.TarInfo(item[0])
                info.size = len(item[1])
                tf.addfile(info, io.BytesIO(item[1]))
    return buf.getvalue()


def refused(tmp_path: Path, skill_cli, archive: bytes, *, suffix: str = ".zip", expect: str = "",
            extra: tuple[str, ...] = ()) -> str:
    """Install the archive; assert the safe outcome; return the message."""
    import os

    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    path = work / f"boxed{suffix}"
    path.write_bytes(archive)
    before = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    result = skill_cli("install", str(path), *extra)
    assert result.code != 0, result.out
    assert "Traceback" not in result.err and "error" in result.err.lower()
    assert expect.lower() in result.err.lower(), result.err
    home = Path(os.environ["HOME"])
    assert not (home / ".agents" / "skills" / "boxed").exists() and not (home / ".claude").exists()
    after = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    written = [p for p in after if p not in before and not p.startswith("skillcli")
               and not p.startswith("userhome/.agents")]
    assert written == [], written
    assert not (tmp_path / "evil").exists() and not Path("/tmp/skillyard-zip-escape").exists()
    return result.err


@pytest.mark.parametrize("name", ["../evil/SKILL.md", "boxed/../../evil.md", "../../../../tmp/skillyard-zip-escape"])
def test_traversal_is_refused(tmp_path, skill_home, skill_cli, name):
    refused(tmp_path, skill_cli, zip_bytes([("SKILL.md", SKILL), (name, "owned\n")]), expect="..")


@pytest.mark.parametrize("name", ["/tmp/skillyard-zip-escape", "C:/evil.md", "boxed\\..\\evil.md"])
def test_absolute_names_are_refused(tmp_path, skill_home, skill_cli, name):
    refused(tmp_path, skill_cli, zip_bytes([("SKILL.md", SKILL), (name, "owned\n")]), expect="absolute path")


@pytest.mark.parametrize("target", ["/etc/passwd", "../../outside.md", "../SKILL.md"])
def test_a_symlink_leaving_the_skill_folder_is_refused(tmp_path, skill_home, skill_cli, target):
    archive = zip_bytes([("boxed/SKILL.md", SKILL), (unix_member("boxed/link.md", stat.S_IFLNK, 0o777), target)])
    refused(tmp_path, skill_cli, archive, expect="links to")


def test_a_device_or_fifo_is_refused(tmp_path, skill_home, skill_cli):
    for kind in (stat.S_IFCHR, stat.S_IFIFO, stat.S_IFBLK):
        archive = zip_bytes([("SKILL.md", SKILL), (unix_member("dev", kind), b"")])
        refused(tmp_path, skill_cli, archive, expect="special file")


def test_a_tar_hardlink_out_of_the_folder_is_refused(tmp_path, skill_home, skill_cli):
    link = tarfile.TarInfo("boxed/notes.md")
    link.type, link.linkname = tarfile.LNKTYPE, "secret.txt"
    archive = tar_gz([("secret.txt", b"secret\n"), ("boxed/SKILL.md", SKILL.encode()), link])
    refused(tmp_path, skill_cli, archive, suffix=".tar.gz", expect="outside the skill folder")


def test_a_tar_traversal_is_refused(tmp_path, skill_home, skill_cli):
    archive = tar_gz([("SKILL.md", SKILL.encode()), ("../evil/x.md", b"owned\n")])
    refused(tmp_path, skill_cli, archive, suffix=".tgz", expect="..")


def test_a_zip_bomb_by_ratio_is_refused_before_inflating(tmp_path, skill_home, skill_cli):
    archive = zip_bytes([("SKILL.md", SKILL), ("zeros.txt", b"\0" * (40 * MIB))])
    assert len(archive) < MIB
    refused(tmp_path, skill_cli, archive, expect="expand")


def test_a_member_larger_than_it_declares_is_refused(tmp_path, skill_home, skill_cli):
    """zipfile stops at the declared size and then fails the CRC; either way only the declared bytes are held."""
    archive = lie_about_size(zip_bytes([("SKILL.md", SKILL), ("data.txt", b"a" * (2 * MIB))]), "data.txt", 10)
    refused(tmp_path, skill_cli, archive, expect="'data.txt'")


def test_declared_contents_over_the_cap_are_refused(tmp_path, skill_home, skill_cli):
    archive = lie_about_size(zip_bytes([("SKILL.md", SKILL), ("data.txt", b"abc" * 1000)]), "data.txt",
                             200 * MIB)
    refused(tmp_path, skill_cli, archive, expect="declares")


def test_an_archive_over_the_download_cap_is_refused_naming_the_key(tmp_path, skill_home, skill_cli, monkeypatch):
    import os

    monkeypatch.setenv("SKILL_INSTALL_MAX_DOWNLOAD_BYTES", str(MIB))
    archive = zip_bytes([("SKILL.md", SKILL), ("noise.bin", os.urandom(2 * MIB))])
    refused(tmp_path, skill_cli, archive, expect="install.max_download_bytes")


def test_too_many_files_are_refused_naming_the_key(tmp_path, skill_home, skill_cli, monkeypatch):
    monkeypatch.setenv("SKILL_INSTALL_MAX_FILES", "20")
    archive = zip_bytes([("SKILL.md", SKILL)] + [(f"refs/r{i}.md", f"# {i}\n") for i in range(40)])
    refused(tmp_path, skill_cli, archive, expect="install.max_files")


def test_more_members_than_any_archive_may_hold_are_refused(tmp_path, skill_home, skill_cli, monkeypatch):
    from skillyard.client import github

    monkeypatch.setattr(github, "MAX_MEMBERS", 30)
    archive = zip_bytes([("SKILL.md", SKILL)] + [(f"x/r{i}.md", "") for i in range(40)])
    refused(tmp_path, skill_cli, archive, expect="limit of 30 entries")


def test_duplicate_names_are_refused(tmp_path, skill_home, skill_cli):
    with pytest.warns(UserWarning):
        archive = zip_bytes([("SKILL.md", SKILL), ("notes.md", "one\n"), ("notes.md", "two\n")])
    refused(tmp_path, skill_cli, archive, expect="twice")


def test_names_that_collide_by_case_are_refused(tmp_path, skill_home, skill_cli):
    archive = zip_bytes([("SKILL.md", SKILL), ("Notes.md", "one\n"), ("notes.md", "two\n")])
    refused(tmp_path, skill_cli, archive, expect="notes.md")


def test_a_non_nfc_name_is_refused(tmp_path, skill_home, skill_cli):
    archive = zip_bytes([("SKILL.md", SKILL), ("cafe\u0301.md", "decomposed\n")])
    refused(tmp_path, skill_cli, archive, expect="NFC")


@pytest.mark.parametrize("name", [".git/config", "boxed/.git/hooks/post-checkout", ".gitmodules", "CON.md"])
def test_metadata_and_reserved_names_are_refused(tmp_path, skill_home, skill_cli, name):
    skill_at = "boxed/SKILL.md" if name.startswith("boxed/") else "SKILL.md"
    archive = zip_bytes([(skill_at, SKILL), (name, "[core]\n\thooksPath = /tmp\n")])
    refused(tmp_path, skill_cli, archive)


def test_an_encrypted_member_is_refused(tmp_path, skill_home, skill_cli):
    data = bytearray(zip_bytes([("SKILL.md", SKILL), ("secret.md", "x\n")]))
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("secret.md")
    struct.pack_into("<H", data, info.header_offset + 6, 1)  # the encrypted flag, in both headers
    at = bytes(data).find(b"PK\x01\x02")
    while at != -1:
        struct.pack_into("<H", data, at + 8, struct.unpack_from("<H", data, at + 8)[0] | 1)
        at = bytes(data).find(b"PK\x01\x02", at + 4)
    refused(tmp_path, skill_cli, bytes(data), expect="encrypted")


def test_a_truncated_zip_is_refused(tmp_path, skill_home, skill_cli):
    archive = zip_bytes([("SKILL.md", SKILL), ("notes.md", "x" * 5000)])
    refused(tmp_path, skill_cli, archive[: len(archive) // 2])


# ---------------------------------------------------------------------------------------------- properties

NAME_PARTS = st.sampled_from(["SKILL.md", "skill", "..", ".", "", ".git", "CON", "a\\b", "/", "C:", "x\u0301",
                              "Notes.md", "notes.md", "\u200b", "scripts", "run.sh", "~", " "])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(st.lists(NAME_PARTS, min_size=1, max_size=4).map("/".join), min_size=1, max_size=6),
       inner=st.sampled_from(["", "skill"]))
def test_any_zip_gives_checked_files_or_a_clear_refusal(names, inner):
    """Whatever the member names, reading either refuses with a SkillyardError or yields only paths the shared
    rule accepts, none colliding, all inside the chosen folder."""
    import warnings

    from skillyard.client import archive, github
    from skillyard.errors import SkillyardError
    from skillyard.format.paths import path_problem, path_set_problems

    buf = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buf, "w") as zf:
        warnings.simplefilter("ignore")
        for name in names:
            with contextlib.suppress(ValueError, OSError, IndexError):  # names zipfile itself cannot write
                zf.writestr(name, SKILL if name.endswith("SKILL.md") else "x")
    try:
        got = archive.read(buf.getvalue(), what="test.zip")
        folder = github.choose_folder(list(got.files) + list(got.links), path=inner, preferred="", what="t",
                                      name_one="t/<folder>")
        files = github.folder_files(got, folder)
    except SkillyardError:
        return
    assert all(path_problem(rel) is None for rel in files)
    assert path_set_problems(list(files)) == []


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=2048))
def test_any_bytes_are_an_archive_or_a_clear_refusal(data):
    from skillyard.client import archive
    from skillyard.errors import SkillyardError

    for head in (b"", b"PK\x03\x04", b"\x1f\x8b"):
        with contextlib.suppress(SkillyardError):  # anything else (a traceback) fails the test
            archive.read(head + data, what="x.zip")


@pytest.mark.parametrize("ref", ["x\0.zip", "./x\0.zip/skill", "a" * 5000 + ".zip", "~nobody-such-user/x.zip"])
def test_a_hostile_archive_path_is_a_clear_error(tmp_path, skill_home, skill_cli, monkeypatch, ref):
    monkeypatch.chdir(tmp_path)
    for command in (("install", ref), ("info", ref)):
        result = skill_cli(*command)
        assert result.code != 0 and "Traceback" not in result.err and "error" in result.err.lower()


def _zip_bytes(members: dict[str, bytes], compression=zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


ZIPPED_SKILL = (b"---\nname: zipped\ndescription: Reads zipped notes when asked to read zipped notes.\n---\n# Z\n\n"
         + b"Read them carefully. " * 40 + b"\n")


def _damaged_deflate() -> bytes:
    data = bytearray(_zip_bytes({"zipped/SKILL.md": ZIPPED_SKILL}))
    start = data.index(b"zipped/SKILL.md") + len("zipped/SKILL.md")  # the member's compressed bytes follow its name
    data[start + 2:start + 40] = b"\xff" * 38
    return bytes(data)


def _future_version() -> bytes:
    data = bytearray(_zip_bytes({"zipped/SKILL.md": ZIPPED_SKILL}))
    central = data.index(b"PK\x01\x02")
    struct.pack_into("<H", data, central + 6, 0x0FF)  # "version needed to extract": far in the future
    struct.pack_into("<H", data, central + 10, 99)  # an unknown compression method
    return bytes(data)


@pytest.mark.parametrize("make", [_damaged_deflate, _future_version])
def test_a_zip_the_library_cannot_decode_is_a_clear_refusal(tmp_path, skill_home, skill_cli, make):
    archive = tmp_path / "skill.zip"
    archive.write_bytes(make())
    result = skill_cli("install", str(archive))
    assert result.code != 0
    assert "Traceback" not in result.err and "internal error" not in result.err, result.err
