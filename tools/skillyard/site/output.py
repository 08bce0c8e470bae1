"""Bring a tree of files up to a planned site without rewriting what did not change (`sync`), and replace a folder
whole in one rename (`swap`). `real_out` uses both to put the site at `--out`, a real folder.

Replacing the whole output folder on every build (write a new tree, rename it over the old one, delete the old
one) cost about 6 s of mkdir/rmdir alone at 5,000 skills (issue 14), whatever changed. So a tree is kept up to
date instead, rewriting only what it cannot prove:

- each tree has a manifest, removed before the tree is touched and written after, so a build killed halfway
  leaves a tree nothing trusts (the next build empties it);
- a file is kept when its manifest entry has the same content key as the new site's file and its identity is the
  one recorded: inode, size, mtime and ctime (a write or chmod moves ctime, which no program can set back);
  anything else is written again, after unlinking the old file (a file is never written in place: a copy of the
  tree someone made with hard links would change with it);
- a folder whose inode, mtime and ctime are the recorded ones still holds exactly the entries it held (adding,
  removing or renaming an entry moves its mtime); any other folder is listed and whatever the site does not
  have there is removed, so a file someone added to the tree is never published.

The site in the tree is therefore the same bytes as a tree written from nothing (tests/site/test_output.py).
Creating folders and files is most of a first build (a few hundred microseconds of kernel time each on a slow
file system, with the GIL released), so they are made by a few threads; the bytes do not depend on the order.
(Earlier releases made `--out` a symlink to one of two such trees; `is_old_tree_link` recognises that link so it is
replaced by the real folder.)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from skillyard.fsutil import write_atomic

FORMAT = "skillyard-site-output-3"
WRITERS = 3  # threads creating folders and files (two cores: 3 beat 1 by 1.4x, 4 beat 3 by nothing)
PARALLEL_MIN = 256  # fewer operations than this are done in the calling thread

# One output file: (content key, source). Source: the bytes, or a function giving the bytes, called only when the
# file must be written (possibly in another thread). The key must change whenever the bytes would.
Source = bytes | Callable[[], bytes]


class Plan:
    """The files of a site, by relative POSIX path."""

    def __init__(self) -> None:
        self.files: dict[str, tuple[str, Source]] = {}

    def add_bytes(self, rel: str, data: bytes) -> None:
        self.files[rel] = ("b" + hashlib.sha256(data).hexdigest()[:40], data)

    def add_lazy(self, rel: str, key: str, make: Callable[[], bytes]) -> None:
        self.files[rel] = ("k" + key, make)

    def add_folder(self, folder: Path, prefix: str = "") -> None:
        """Every regular file under `folder` (a tree only this build wrote, such as mkdocs' output), read now."""
        for top, dirs, names in os.walk(folder):
            dirs.sort()
            base = Path(top).relative_to(folder).as_posix()
            for name in sorted(names):
                rel = name if base == "." else f"{base}/{name}"
                path = Path(top) / name
                if stat.S_ISREG(os.lstat(path).st_mode):
                    self.add_bytes(prefix + rel, path.read_bytes())

    def folders(self) -> set[str]:
        """Every folder the files need, "" (the tree itself) included."""
        out = {""}
        for rel in self.files:
            folder = rel.rpartition("/")[0]
            while folder not in out:  # up to the first folder known already ("" at the latest)
                out.add(folder)
                folder = folder.rpartition("/")[0]
        return out


def _identity(path: str) -> list[int] | None:
    try:
        return _ids(os.lstat(path))
    except OSError:
        return None


def _ids(info: os.stat_result) -> list[int]:
    return [info.st_mode, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def _file_record(ids: list[int] | None) -> list[int] | None:
    if ids is None or not stat.S_ISREG(ids[0]):
        return None
    return [ids[1], ids[2], ids[3], ids[4]]


def _same_file(recorded: list, ids: list[int] | None) -> bool:
    if ids is None or not stat.S_ISREG(ids[0]) or not isinstance(recorded, list) or len(recorded) != 4:
        return False
    return recorded == ids[1:5]


def _dir_record(ids: list[int] | None) -> list[int] | None:
    if ids is None or not stat.S_ISDIR(ids[0]):
        return None
    return [ids[1], ids[3], ids[4]]


def remove(path: str | Path) -> None:
    """Remove a file, a symlink or a real folder with its content (a symlinked folder's target is left alone)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def load_manifest(path: Path) -> dict | None:
    """{"files": {rel: [key, inode, size, mtime, ctime]}, "dirs": {rel: [inode, mtime, ctime]}} from the file
    `dump_manifest` wrote, or None when it is missing or does not hold together."""
    try:
        data = json.loads(path.read_bytes())
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        files, dirs = data["files"], data["dirs"]
        paths, keys, ids = files["paths"], files["keys"], files["ids"]
        dir_paths, dir_ids = dirs["paths"], dirs["ids"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    lists = (paths, keys, ids, dir_paths, dir_ids)
    if not all(type(value) is list for value in lists) or len(keys) != len(paths) or len(ids) != 4 * len(paths) \
            or len(dir_ids) != 3 * len(dir_paths) or not set(map(type, paths + keys + dir_paths)) <= {str} \
            or not set(map(type, ids + dir_ids)) <= {int}:
        return None
    if not _all_plain(paths) or not _all_plain([rel for rel in dir_paths if rel]):
        return None  # a damaged manifest proves nothing, and never names a path outside its tree
    # The records zipped from strided slices (C loops; the lengths were checked above): 40,000 records a build.
    records = map(list, zip(keys, ids[0::4], ids[1::4], ids[2::4], ids[3::4], strict=True))
    dir_records = map(list, zip(dir_ids[0::3], dir_ids[1::3], dir_ids[2::3], strict=True))
    return {"files": dict(zip(paths, records, strict=True)), "dirs": dict(zip(dir_paths, dir_records, strict=True))}


def dump_manifest(files: dict[str, list], dirs: dict[str, list | None]) -> str:
    """The manifest as flat lists (one list of paths, of keys, of numbers), which JSON reads and writes about
    three times faster than a dict of small lists at 50,000 files."""
    dir_paths = [rel for rel, record in dirs.items() if record is not None]
    return json.dumps({"format": FORMAT,
                       "files": {"paths": list(files), "keys": [record[0] for record in files.values()],
                                 "ids": [n for record in files.values() for n in record[1:]]},
                       "dirs": {"paths": dir_paths, "ids": [n for rel in dir_paths for n in dirs[rel]]}},
                      separators=(",", ":"))


def _all_plain(rels: list[str]) -> bool:
    """Every path relative and staying inside its tree: no empty, `.` or `..` component, no leading slash, no NUL.
    The paths are joined by line feeds (which no path may hold) and each put between slashes, so a bad component
    is `//`, `/./` or `/../` somewhere: three substring searches, not a regex tried at each of 2 MB of positions."""
    joined = "\n".join(rels)
    if not rels:
        return True
    if joined.count("\n") != len(rels) - 1 or "\x00" in joined:
        return False
    wrapped = "/" + joined.replace("\n", "/\n/") + "/"
    return "//" not in wrapped and "/./" not in wrapped and "/../" not in wrapped


def sync(tree: Path, manifest: Path | None, plan: Plan, early: dict | None = None) -> dict[str, int]:
    """Make `tree` hold exactly `plan`, trusting what `manifest` proves (None: no manifest, write all); returns
    counts of files written and kept. `early`: what `write_early` recorded of the files this build already wrote
    into `tree` (trusted instead of the manifest, and proven the same way; counted as written)."""
    old = load_manifest(manifest) if manifest is not None else None
    if manifest is not None:
        manifest.unlink(missing_ok=True)
    if early is not None:
        old = early
    if old is None or _dir_record(_identity(str(tree))) is None:
        remove(tree)
        old = {"files": {}, "dirs": {}}
    files, dirs, written = _apply(tree, old, plan)
    if manifest is not None:
        write_atomic(manifest, dump_manifest(files, dirs), mode=0o600)
    if early is not None:  # the files written early are this build's writes too
        written += sum(1 for rel in early["files"] if rel in plan.files and files[rel] == early["files"][rel])
    return {"written": written, "kept": len(plan.files) - written}


def write_early(tree: Path, plan: Plan) -> dict:
    """Write `plan` (part of a site) into `tree`, a new empty folder a later `sync` of the whole site completes,
    while the rest of the site is still being made; returns the records `sync(..., early=)` takes."""
    files, dirs, _ = _apply(tree, {"files": {}, "dirs": {}}, plan)
    return {"files": files, "dirs": {rel: record for rel, record in dirs.items() if record is not None}}


def _apply(tree: Path, old: dict, plan: Plan) -> tuple[dict[str, list], dict[str, list | None], int]:
    """The work of `sync` once it knows what to trust: (file records, folder records, files written)."""
    tree.mkdir(parents=True, exist_ok=True)
    base = str(tree)
    wanted = plan.folders()
    old_files, old_dirs = old["files"], old["dirs"]
    present, proven = _check_folders(base, wanted, old_dirs, plan.files)
    touched: set[str] = set()  # folders whose entries this sync changes: their identity is read again at the end
    for rel in old_files:  # files the site no longer has, in folders it keeps
        if rel not in plan.files and rel.rpartition("/")[0] in present:
            remove(os.path.join(base, rel))
            touched.add(rel.rpartition("/")[0])
    levels: dict[int, list[str]] = {}
    for folder in wanted - present:  # parents before children; folders of one depth in any order
        levels.setdefault(folder.count("/"), []).append(os.path.join(base, folder))
        touched.add(folder.rpartition("/")[0])
    for depth in sorted(levels):
        in_parallel(os.mkdir, sorted(levels[depth]))
    kept, todo = _kept_files(os.path.join(base, ""), old_files, plan.files)
    new = wanted - present  # made just now: nothing is in them to remove first
    records = in_parallel(lambda rel: _write(os.path.join(base, rel), plan.files[rel][1],
                                             rel.rpartition("/")[0] not in new), todo)
    made = dict(zip(todo, records, strict=True))
    files = {rel: kept.get(rel) or [plan.files[rel][0], *made[rel]] for rel in plan.files}
    written = len(todo)
    touched.update(rel.rpartition("/")[0] for rel in todo)
    dirs = {rel: old_dirs[rel] if rel in proven and rel not in touched
            else _dir_record(_identity(os.path.join(base, rel)) if rel else _identity(base)) for rel in wanted}
    return files, dirs, written


def _kept_files(prefix: str, old_files: dict, files: dict) -> tuple[dict[str, list], list[str]]:
    """({rel: record} of the planned files the tree holds as recorded under the same key, [the others' rel]):
    `_same_file` of each, inlined (one `lstat` and one list comparison a file: this loop runs over every file of
    the site on each build). `prefix`: the tree's path ending in a slash."""
    kept: dict[str, list] = {}
    todo: list[str] = []
    lstat, is_reg = os.lstat, stat.S_ISREG
    for rel, (key, _source) in files.items():
        record = old_files.get(rel)
        if record is None or record[0] != key:
            todo.append(rel)
            continue
        try:
            info = lstat(prefix + rel)
        except OSError:
            todo.append(rel)
            continue
        if is_reg(info.st_mode) and len(record) == 5 and \
                record[1:] == [info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]:
            kept[rel] = record
        else:
            todo.append(rel)
    return kept, todo


def _check_folders(base: str, wanted: set[str], old_dirs: dict, files: dict) -> tuple[set[str], set[str]]:
    """Remove every folder the site no longer has and every entry a changed folder holds that the site does not;
    returns the wanted folders that are there (real folders, proven or cleaned), and those of them proven by
    their recorded identity (untouched here)."""
    present: set[str] = set()
    changed: set[str] = set()  # folders an entry was removed from here
    prefix, lstat, is_dir = os.path.join(base, ""), os.lstat, stat.S_ISDIR
    # The tree itself is renamed by every exchange (`real_out`), which moves its ctime: it is listed below, yet
    # while it is a real folder (no symlink on the way) each folder in it is still proven by its own identity.
    real_root = False
    for rel in sorted(old_dirs, key=lambda rel: rel.count("/")):
        parent = rel.rpartition("/")[0]
        if rel and parent not in present and not (real_root and not parent):
            continue  # its parent was removed or is listed below
        if rel not in wanted:
            remove(prefix + rel)
            changed.add(parent)
            continue
        try:  # `_dir_record(_identity(…)) == old_dirs[rel]`, inlined (a call a folder of the site, every build)
            info = lstat(prefix + rel if rel else base)
        except OSError:
            continue
        if is_dir(info.st_mode) and [info.st_ino, info.st_mtime_ns, info.st_ctime_ns] == old_dirs[rel]:
            present.add(rel)
        elif not rel:
            real_root = is_dir(info.st_mode)
    proven = present - changed
    # Folders not proven: list them (and any unrecorded folder they keep) and drop what the site does not have.
    unproven = [rel for rel in wanted if rel not in present and (rel == "" or rel.rpartition("/")[0] in present)]
    while unproven:
        rel = unproven.pop()
        path = os.path.join(base, rel) if rel else base
        if _dir_record(_identity(path)) is None:
            remove(path)
            proven.discard(rel.rpartition("/")[0])
            continue
        present.add(rel)
        for entry in os.scandir(path):
            child = f"{rel}/{entry.name}" if rel else entry.name
            if entry.is_dir(follow_symlinks=False) and child in wanted:
                if child not in present:
                    unproven.append(child)
            elif not (entry.is_file(follow_symlinks=False) and child in files):
                remove(entry.path)  # a regular file the plan has stays: its identity is checked with the rest
    return present, proven


def _write(path: str, source: Source, clear: bool = True) -> list[int]:
    """Write one file (never into an existing one) and return its recorded identity. `clear`: remove what is at
    `path` first (False in a folder this sync made: O_EXCL still refuses anything found there)."""
    if clear:
        remove(path)
    data = source if isinstance(source, bytes) else source()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        record = _file_record(_ids(os.fstat(fd)))
    finally:
        os.close(fd)
    if record is None:
        raise OSError(f"{path}: not a regular file right after writing it")
    return record


def in_parallel(work: Callable, items: list, workers: int = WRITERS) -> list:
    """[work(item) for item in items], run by `workers` threads when there are enough items to pay for them. The
    first error stops the others (each finishes the item in hand) and is raised; results keep the items' order."""
    if workers <= 1 or len(items) < PARALLEL_MIN:
        return [work(item) for item in items]
    results: list = [None] * len(items)
    errors: list[BaseException] = []
    stop = threading.Event()
    lock = threading.Lock()
    positions = iter(range(0, len(items), 16))

    def run() -> None:
        while not stop.is_set():
            with lock:
                first = next(positions, None)
            if first is None:
                return
            try:
                for i in range(first, min(first + 16, len(items))):
                    results[i] = work(items[i])
            except BaseException as exc:  # noqa: BLE001 (handed to the calling thread below)
                errors.append(exc)
                stop.set()
                return

    threads = [threading.Thread(target=run, name=f"site-writer-{n}", daemon=True) for n in range(workers)]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            thread.join()
    except BaseException:
        stop.set()
        raise
    if errors:
        raise errors[0]
    return results


def _tree_home(work_dir: Path, out: Path) -> Path:
    return work_dir / "out" / hashlib.sha256(str(out).encode("utf-8")).hexdigest()[:16]


_OUR_LINK = re.compile(r"(?:.*/)?out/[0-9a-f]{16}/(?:a|b)/?")


def is_old_tree_link(out: Path) -> bool:
    """Whether `out` is the symlink an earlier release left there, to one of its A/B trees in a work folder (any
    work folder): `--out` is now a real folder, so such a link is replaced, never followed."""
    try:
        return bool(_OUR_LINK.fullmatch(os.readlink(out)))
    except OSError:
        return False


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def staging_beside(out: Path) -> Path:
    """A new empty folder beside `out`, where `swap` writes the site before renaming it over `out`."""
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        os.chmod(staging, 0o777 & ~_umask())  # mkdtemp's 0700 would hide the site from a server run as another user
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return staging


def swap(out: Path, plan: Plan, manifest: Path | None = None, staging: Path | None = None,
         early: dict | None = None) -> dict[str, int]:
    """Write the whole site beside `out`, then rename it over `out` (a failed build never leaves half a site).
    `manifest`: where to record the tree written (`sync`), for a later build that keeps it up to date.
    `staging`: the folder from `staging_beside` to write in (removed if this fails), holding what `write_early`
    wrote there and recorded (`early`)."""
    staging = staging or staging_beside(out)
    try:
        if manifest is not None:
            manifest.unlink(missing_ok=True)  # nothing is trusted: the tree is new (sync makes it again)
        counts = sync(staging, manifest, plan, early)
        replace_dir(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return counts


def replace_dir(built: Path, out: Path) -> None:
    """Put a finished build at `out` in one rename, so a failed build never leaves a half-written site."""
    old = out.with_name(out.name + ".old")
    remove(old)
    if os.path.lexists(out):  # a folder, or a symlink (`--static-host` replaces the link to the A/B trees)
        os.replace(out, old)
    os.replace(built, out)
    remove(old)
