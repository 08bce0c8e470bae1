"""The output trees (`site/output.py`): a tree brought up to date holds the same bytes as one written from nothing,
whatever happened to it in between; `--out` is switched atomically, and a build that fails or is killed while it
writes leaves the site before it whole."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CONFIG, SKILLS, write_registry
from skillyard.site import output, staged
from skillyard.site.builder import build_site


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def everything(folder: Path) -> list[str]:
    """Every entry under `folder`, folders and symlinks included."""
    return sorted(p.relative_to(folder).as_posix() + ("/" if p.is_dir() and not p.is_symlink() else "")
                  for p in folder.rglob("*"))


def plan_of(files: dict[str, bytes]) -> output.Plan:
    plan = output.Plan()
    for rel, data in files.items():
        plan.add_bytes(rel, data)
    return plan


FILES = {"index.html": b"home\n", "skills/a/index.html": b"a\n", "skills/b/index.html": b"b\n",
         "assets/x/y/z.css": b"z\n", ".nojekyll": b""}


def test_sync_writes_only_what_changed_and_keeps_what_it_can_prove(tmp_path):
    target, manifest = tmp_path / "t", tmp_path / "t.json"
    assert output.sync(target, manifest, plan_of(FILES)) == {"written": 5, "kept": 0}
    inode = (target / "skills/a/index.html").stat().st_ino
    changed = {**FILES, "skills/b/index.html": b"b2\n", "skills/c/index.html": b"c\n"}
    del changed["assets/x/y/z.css"]
    assert output.sync(target, manifest, plan_of(changed)) == {"written": 2, "kept": 3}
    assert (target / "skills/a/index.html").stat().st_ino == inode
    assert tree(target) == changed
    assert everything(target) == sorted([".nojekyll", "index.html", "skills/", "skills/a/", "skills/a/index.html",
                                         "skills/b/", "skills/b/index.html", "skills/c/", "skills/c/index.html"])


def test_a_renamed_tree_is_listed_but_its_folders_are_still_proven_by_their_own_identity(tmp_path, monkeypatch):
    """Every exchange renames the tree (its ctime moves): only the tree itself is listed again, and what someone
    put into it, or into a folder of it, while it was elsewhere is still removed."""
    target, manifest = tmp_path / "t", tmp_path / "t.json"
    output.sync(target, manifest, plan_of(FILES))
    os.rename(target, tmp_path / "moved")
    os.rename(tmp_path / "moved", target)
    listed: list[str] = []
    scandir = os.scandir
    monkeypatch.setattr(output.os, "scandir", lambda path: listed.append(str(path)) or scandir(path))
    assert output.sync(target, manifest, plan_of(FILES)) == {"written": 0, "kept": len(FILES)}
    assert listed == [str(target)]
    os.rename(target, tmp_path / "moved")
    (tmp_path / "moved" / "stray.html").write_bytes(b"x")
    (tmp_path / "moved" / "skills" / "a" / "stray.html").write_bytes(b"x")
    (tmp_path / "moved" / "assets" / "x" / "extra").mkdir()
    os.rename(tmp_path / "moved", target)
    listed.clear()
    assert output.sync(target, manifest, plan_of(FILES)) == {"written": 0, "kept": len(FILES)}
    # the changed folders, and below a changed folder its folders (shutil.rmtree lists "extra" by descriptor)
    assert sorted(path for path in listed if path.startswith(str(target))) == \
        sorted(str(target / rel).rstrip("/.") for rel in ("", "skills/a", "assets/x", "assets/x/y"))
    assert tree(target) == FILES
    assert everything(target) == everything_of(tmp_path, FILES)


def test_lazy_files_are_made_only_when_written(tmp_path):
    made: list[str] = []

    def plan() -> output.Plan:
        result = output.Plan()
        for rel in ("p/1", "p/2"):
            result.add_lazy(rel, f"key-{rel}", lambda rel=rel: made.append(rel) or rel.encode())
        return result

    output.sync(tmp_path / "t", tmp_path / "t.json", plan())
    output.sync(tmp_path / "t", tmp_path / "t.json", plan())
    assert made == ["p/1", "p/2"] and tree(tmp_path / "t") == {"p/1": b"p/1", "p/2": b"p/2"}


@pytest.mark.parametrize("tamper", ["edit", "edit-same-size-and-mtime", "extra-file", "extra-folder", "file-to-link",
                                    "folder-to-link", "folder-to-file", "chmod", "manifest-damaged", "hard-link"])
def test_a_tampered_tree_is_not_trusted(tmp_path, tamper):
    target, manifest = tmp_path / "t", tmp_path / "t.json"
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "index.html").write_bytes(b"SECRET\n")
    output.sync(target, manifest, plan_of(FILES))
    page = target / "skills/a/index.html"
    if tamper == "edit":
        page.write_bytes(b"edited\n")
    elif tamper == "edit-same-size-and-mtime":
        info = page.stat()
        page.write_bytes(b"X\n")
        os.utime(page, ns=(info.st_atime_ns, info.st_mtime_ns))  # ctime still moves
    elif tamper == "extra-file":
        (target / "skills/a/evil.html").write_bytes(b"<script></script>\n")
    elif tamper == "extra-folder":
        (target / "skills/evil").mkdir()
        (target / "skills/evil/index.html").write_bytes(b"evil\n")
    elif tamper == "file-to-link":
        page.unlink()
        page.symlink_to(secret / "index.html")
    elif tamper == "folder-to-link":
        os.rename(target / "skills/a", tmp_path / "moved")
        (target / "skills/a").symlink_to(secret)
    elif tamper == "folder-to-file":
        os.rename(target / "assets", tmp_path / "moved")
        (target / "assets").write_bytes(b"not a folder\n")
    elif tamper == "chmod":
        page.chmod(0o600)
    elif tamper == "manifest-damaged":
        manifest.write_text("{not json", encoding="utf-8")
        page.write_bytes(b"edited\n")
    elif tamper == "hard-link":
        os.link(page, tmp_path / "other-name")
        with (tmp_path / "other-name").open("r+b") as handle:
            handle.write(b"Z")
    output.sync(target, manifest, plan_of(FILES))
    assert tree(target) == FILES
    assert not (target / "skills/a").is_symlink() and not page.is_symlink()
    assert everything(target) == everything_of(tmp_path, FILES)
    assert (secret / "index.html").read_bytes() == b"SECRET\n"


def everything_of(tmp_path: Path, files: dict[str, bytes]) -> list[str]:
    fresh = tmp_path / "fresh"
    output.sync(fresh, None, plan_of(files))
    return everything(fresh)


def test_a_sync_stopped_halfway_leaves_a_tree_nothing_trusts(tmp_path, monkeypatch):
    target, manifest = tmp_path / "t", tmp_path / "t.json"
    output.sync(target, manifest, plan_of(FILES))
    writes = []
    real_write = output._write

    def failing(path, source, *rest):
        if len(writes) == 1:
            raise KeyboardInterrupt
        writes.append(path)
        return real_write(path, source, *rest)

    monkeypatch.setattr(output, "_write", failing)
    changed = {rel: data + b"2" for rel, data in FILES.items()}
    with pytest.raises(KeyboardInterrupt):
        output.sync(target, manifest, plan_of(changed))
    assert not manifest.exists()
    monkeypatch.setattr(output, "_write", real_write)
    assert output.sync(target, manifest, plan_of(FILES))["written"] == len(FILES)
    assert tree(target) == FILES


def test_many_files_are_written_by_several_threads_to_the_same_tree(tmp_path, monkeypatch):
    files = {f"skills/s{i:03}/{name}": f"{i}{name}\n".encode() for i in range(150) for name in ("index.html", "x.md")}
    threads = set()
    real_write = output._write

    def recording(path, source, *rest):
        import threading
        threads.add(threading.get_ident())
        return real_write(path, source, *rest)

    monkeypatch.setattr(output, "_write", recording)
    assert output.sync(tmp_path / "t", tmp_path / "t.json", plan_of(files))["written"] == len(files)
    assert len(threads) > 1
    assert tree(tmp_path / "t") == files
    assert everything(tmp_path / "t") == everything_of(tmp_path, files)


def test_an_error_in_one_writer_thread_stops_the_sync_and_nothing_trusts_the_tree(tmp_path, monkeypatch):
    files = {f"p/{i:04}": b"%d" % i for i in range(600)}
    target, manifest = tmp_path / "t", tmp_path / "t.json"
    output.sync(target, manifest, plan_of(files))
    changed = {rel: data + b"!" for rel, data in files.items()}
    calls = []

    def failing():
        calls.append(1)
        raise OSError(28, "No space left on device")

    plan = plan_of(changed)
    plan.add_lazy("p/0300x", "k", failing)
    with pytest.raises(OSError, match="No space"):
        output.sync(target, manifest, plan)
    assert calls == [1] and not manifest.exists()
    assert output.sync(target, manifest, plan_of(files))["written"] == len(files)
    assert tree(target) == files


@pytest.mark.parametrize("tamper", ["none", "edit", "extra-file", "removed"])
def test_files_written_early_are_completed_by_sync_and_proven_like_a_manifest(tmp_path, tamper):
    """A first build writes part of its tree early (`write_early`); the sync of the whole site keeps those files only
    when their identity is the one recorded, writes the rest, and counts all of them as written. The tree is the
    one a sync from nothing writes, whatever happened to it in between."""
    files = {**FILES, "skills/c/x/index.html": b"c\n", ".well-known/a/SKILL.md": b"a\n", ".well-known/a.tar.gz": b"z"}
    part = plan_of({rel: data for rel, data in files.items() if rel.startswith((".well-known/", "skills/c/"))})
    target, manifest = tmp_path / "t", tmp_path / "t.json"
    target.mkdir()
    early = output.write_early(target, part)
    assert sorted(early["files"]) == sorted(part.files) and tree(target) == {rel: data for rel, data in files.items()
                                                                             if rel in part.files}
    if tamper == "edit":
        (target / ".well-known/a/SKILL.md").write_bytes(b"b\n")
    elif tamper == "extra-file":
        (target / ".well-known/a/extra.html").write_bytes(b"<script>1</script>")
    elif tamper == "removed":
        (target / ".well-known/a.tar.gz").unlink()
    assert output.sync(target, manifest, plan_of(files), early) == {"written": len(files), "kept": 0}
    assert tree(target) == files and everything(target) == everything_of(tmp_path, files)
    assert output.sync(target, manifest, plan_of(files)) == {"written": 0, "kept": len(files)}  # its manifest holds


# Whole builds: --out is a real folder, exchanged with a spare copy kept up to date in the work folder.

@pytest.fixture(autouse=True)
def trust_fresh_files(monkeypatch):
    monkeypatch.setattr(staged, "RACY_NS", 0)


def build(root: Path, registry: Path, out: Path, work: Path, **kwargs):
    return build_site(registry, root, out, config=CONFIG, work_dir=work, **kwargs)


def test_out_is_a_real_folder_rebuilt_in_place_and_equal_to_a_fresh_build(tmp_path):
    """issue 35 item 7: `cp -a`, rsync and uploads copy --out as it is, so it is never a link into the work
    folder; rebuilds still rewrite only what changed."""
    root, out, work = tmp_path / "repo", tmp_path / "out", tmp_path / "work"
    registry = write_registry(root, SKILLS)
    build(root, registry, out, work)
    assert out.is_dir() and not out.is_symlink()
    changed = [dict(spec, body=spec["body"] + "\nA new line.\n") if spec["name"] == "pdf-tools" else spec
               for spec in SKILLS]
    registry = write_registry(root, changed)
    result = build(root, registry, out, work)
    assert not out.is_symlink() and b"A new line." in (out / "skills/pdf-tools/index.html").read_bytes()
    third = build(root, registry, out, work)
    assert third.files_written < result.files_written + result.files_kept
    scratch = tmp_path / "scratch"
    build(root, registry, scratch, tmp_path / "scratch-work", use_cache=False)
    assert tree(out) == tree(scratch)
    assert everything(out) == everything(scratch)
    copied = tmp_path / "copied"
    shutil.copytree(out, copied, symlinks=True)  # what `cp -a` does: no link to follow, nothing dangling
    assert tree(copied) == tree(scratch)


@pytest.mark.parametrize("where", ["new-out", "spare"])
def test_a_first_build_writes_the_served_files_early_and_the_site_is_the_same(tmp_path, monkeypatch, where):
    """A tree written whole (a new --out; a spare tree with no manifest) gets the well-known files from a forked
    child while the pages are made; when that child fails, the build writes them itself: same bytes either way,
    every file counted as written, nothing left beside --out."""
    from skillyard.site import real_out

    root = tmp_path / "repo"
    registry = write_registry(root, SKILLS)
    scratch = tmp_path / "scratch"
    build(root, registry, scratch, tmp_path / "scratch-work", use_cache=False)
    calls = tmp_path / "early-pids"  # the child's memory is its own: it leaves its pid in a file
    real = output.write_early

    def counted(tree_path, plan):
        with calls.open("a") as log:
            log.write(f"{os.getpid()}\n")
        return real(tree_path, plan)

    def failing(tree_path, plan):
        real(tree_path, output.Plan())
        os._exit(3)

    for attempt, early in enumerate((counted, failing)):
        monkeypatch.setattr(output, "write_early", early)
        out = tmp_path / f"out-{attempt}"
        if where == "spare":
            shutil.copytree(scratch, out)  # an --out from elsewhere: this work folder has no spare tree for it yet
        result = build(root, registry, out, tmp_path / f"work-{attempt}")
        assert tree(out) == tree(scratch) and everything(out) == everything(scratch)
        assert result.files_written == len(tree(scratch)) and result.files_kept == 0
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    pids = calls.read_text().split()
    assert len(pids) == 1 and str(os.getpid()) not in pids  # written by the forked child, not by the build itself
    assert real_out.write_early_in_child(tmp_path / "unused", output.Plan(), os.getpid()) is None


def test_an_unchanged_rebuild_writes_almost_nothing(tmp_path):
    root, out, work = tmp_path / "repo", tmp_path / "out", tmp_path / "work"
    registry = write_registry(root, SKILLS)
    for _ in range(3):  # the third build finds its tree as the first one left it
        result = build(root, registry, out, work)
    assert result.files_written == 0 and result.files_kept > 0


def test_a_failed_write_leaves_the_previous_site(tmp_path, monkeypatch):
    root, out, work = tmp_path / "repo", tmp_path / "out", tmp_path / "work"
    registry = write_registry(root, SKILLS)
    build(root, registry, out, work)
    before, served = tree(out), out.resolve()
    build(root, registry, tmp_path / "elsewhere", work)  # nothing of another --out is shared

    def broken(path, source, *rest):
        raise OSError("disk full")

    monkeypatch.setattr(output, "_write", broken)
    changed = [dict(spec, description="Changed.") if spec["name"] == "pdf-tools" else spec for spec in SKILLS]
    registry = write_registry(root, changed)
    with pytest.raises(OSError, match="disk full"):
        build(root, registry, out, work)
    assert out.resolve() == served and tree(out) == before
    monkeypatch.undo()
    monkeypatch.setattr(staged, "RACY_NS", 0)
    build(root, registry, out, work)
    scratch = tmp_path / "scratch"
    build(root, registry, scratch, tmp_path / "scratch-work", use_cache=False)
    assert tree(out) == tree(scratch)


def test_the_link_an_older_release_left_becomes_the_real_folder(tmp_path):
    root, out, work = tmp_path / "repo", tmp_path / "out", tmp_path / "work"
    registry = write_registry(root, SKILLS[:2])
    old_tree = work / "out" / "0123456789abcdef" / "a"  # where an older release kept its A/B copies
    build(root, registry, tmp_path / "first", tmp_path / "work0")
    shutil.copytree(tmp_path / "first", old_tree, symlinks=True)
    (old_tree / "index.html").write_text("the old site\n")
    out.symlink_to(os.path.relpath(old_tree, out.parent), target_is_directory=True)
    build(root, registry, out, work)
    assert out.is_dir() and not out.is_symlink() and (out / "index.html").read_text() != "the old site\n"
    mine = tmp_path / "mine"
    mine.mkdir()
    link = tmp_path / "published"
    link.symlink_to(mine, target_is_directory=True)  # a link of the user's own is followed, not replaced
    build(root, registry, link, tmp_path / "work2")
    assert link.is_symlink() and (mine / "index.html").is_file()
    assert tree(mine) == tree(out)


def test_without_symlinks_the_site_is_swapped_whole(tmp_path, monkeypatch):
    root, out, work = tmp_path / "repo", tmp_path / "out", tmp_path / "work"
    registry = write_registry(root, SKILLS[:2])

    def refuse(*args, **kwargs):
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(os, "symlink", refuse)
    build(root, registry, out, work)
    build(root, registry, out, work)
    assert out.is_dir() and not out.is_symlink() and (out / "index.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "repo", "work"]


def test_the_well_known_index_is_the_bytes_json_would_write():
    from skillyard.site.machine import dump, dump_well_known_index

    odd = 'quote " backslash \\ tab \t nl \n \u2028 \x00 é 发票 😀'
    from skillyard.site.machine import DISCOVERY_SCHEMA, well_known_index

    def entry(name: str, description: object, digest: str = "sha256:" + "0" * 64) -> dict:
        return {"name": name, "description": description, "type": "archive", "url": f"{name}.tar.gz",
                "digest": digest}

    indexes = [{"$schema": DISCOVERY_SCHEMA, "skills": []},
               {"$schema": DISCOVERY_SCHEMA, "skills": [entry("a", odd)]},
               {"$schema": DISCOVERY_SCHEMA, "skills": [entry("a", "d", odd), entry("b-2", "")]},
               {"$schema": DISCOVERY_SCHEMA, "skills": [entry("a", 3)]},
               {"skills": [entry("a", "d")]},
               well_known_index({"skills": [{"name": "z", "description": odd}, {"name": "a", "description": "d"},
                                            {"name": "m", "description": "not packed"}]},
                                {"z": "sha256:" + "1" * 64, "a": "sha256:" + "2" * 64})]
    assert [s["name"] for s in indexes[-1]["skills"]] == ["a", "z"]
    for index in indexes:
        assert dump_well_known_index(index) == dump(index)


@pytest.mark.parametrize("entry", ["..", "../outside", "a/../../outside", "/abs", "a//b", "./a"])
def test_a_manifest_naming_paths_outside_its_tree_is_not_trusted(tmp_path, entry):
    import json

    target, manifest = tmp_path / "t", tmp_path / "t.json"
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/keep").write_bytes(b"keep\n")
    output.sync(target, manifest, plan_of(FILES))
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["dirs"]["paths"].append(entry)
    data["dirs"]["ids"] += [1, 2, 3]
    manifest.write_text(json.dumps(data), encoding="utf-8")
    output.sync(target, manifest, plan_of(FILES))
    assert (tmp_path / "outside/keep").read_bytes() == b"keep\n" and tree(target) == FILES
    data = json.loads(manifest.read_text(encoding="utf-8"))
    data["files"]["paths"].append(entry)
    data["files"]["keys"].append("b")
    data["files"]["ids"] += [1, 2, 3, 4]
    manifest.write_text(json.dumps(data), encoding="utf-8")
    assert output.sync(target, manifest, plan_of(FILES))["written"] == len(FILES)  # nothing trusted
    assert (tmp_path / "outside/keep").read_bytes() == b"keep\n" and tree(target) == FILES


@pytest.mark.parametrize("damage", ["short ids", "string id", "key not a string", "line feed in a path",
                                    "NUL in a path", "not lists", "no format"])
def test_a_manifest_that_does_not_hold_together_proves_nothing(tmp_path, damage):
    import json

    target, manifest = tmp_path / "t", tmp_path / "t.json"
    output.sync(target, manifest, plan_of(FILES))
    assert output.load_manifest(manifest) is not None
    data = json.loads(manifest.read_text(encoding="utf-8"))
    files = data["files"]
    if damage == "short ids":
        files["ids"].pop()
    elif damage == "string id":
        files["ids"][0] = "1"
    elif damage == "key not a string":
        files["keys"][0] = 1
    elif damage == "line feed in a path":
        files["paths"][0] = "index.html\n../x"
    elif damage == "NUL in a path":
        files["paths"][0] = "index.html\0"
    elif damage == "not lists":
        data["files"] = {rel: [key] for rel, key in zip(files["paths"], files["keys"], strict=True)}
    else:
        del data["format"]
    manifest.write_text(json.dumps(data), encoding="utf-8")
    assert output.load_manifest(manifest) is None
    assert output.sync(target, manifest, plan_of(FILES))["written"] == len(FILES)
    assert tree(target) == FILES


def test_folders_changed_by_a_sync_are_recorded_anew_and_the_others_need_no_listing(tmp_path, monkeypatch):
    target, manifest = tmp_path / "t", tmp_path / "t.json"
    files = {**FILES, "skills/c/x/index.html": b"c\n", "skills/d/index.html": b"d\n"}
    output.sync(target, manifest, plan_of(files))
    fewer = {rel: data for rel, data in files.items() if not rel.startswith(("skills/c/", "skills/b/"))}
    output.sync(target, manifest, plan_of({**fewer, "skills/d/new.html": b"new\n"}))
    listed: list[str] = []
    real = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path: listed.append(path) or real(path))
    assert output.sync(target, manifest, plan_of({**fewer, "skills/d/new.html": b"new\n"}))["written"] == 0
    assert listed == []  # every folder's new identity was recorded: none is listed again
    (target / "skills/d/extra.html").write_bytes(b"<script>1</script>")
    (target / "skills/extra").mkdir()
    output.sync(target, manifest, plan_of(fewer))
    assert tree(target) == fewer
    assert everything(target) == everything_of(tmp_path, fewer)


_NOT_PLAIN = re.compile(r"(?:^|/)\.{0,2}(?:/|$)|\x00", re.MULTILINE)  # the rule as one regex (the old check)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(alphabet="a./\x00\n", max_size=7), max_size=5))
def test_the_plain_path_check_is_the_regex_it_replaced(rels):
    """`_all_plain` searches three substrings instead of a regex: the same verdict on any list of paths."""
    joined = "\n".join(rels)
    expected = not rels or (joined.count("\n") == len(rels) - 1 and _NOT_PLAIN.search(joined) is None)
    assert output._all_plain(rels) == expected
