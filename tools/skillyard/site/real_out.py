"""`--out` is a real folder (which `cp -a`, rsync or an upload copy as it is), still rebuilt
without rewriting what did not change and never seen half-written.

Writing the whole site beside `--out` and renaming it over (`output.swap`) writes every file and then deletes
every old one: at 2,000 skills of a static registry (20,347 files) deleting the old tree alone took 70 s of a
90 s rebuild on a loaded two-core machine. Instead a spare tree is kept in the work folder
(`<work>/out/<key>/spare`), brought up to date by `output.sync` like the A/B trees (its manifest proves what it
holds), and then exchanged with `--out` in one atomic step (Linux `renameat2(RENAME_EXCHANGE)`): readers see the
old site or the new one, and the old one becomes the spare of the next build. A manifest names the folder it was
written for by identity only, so one that ends up beside the other tree (a build killed between the exchange and
the renaming of the manifests) proves nothing and costs a rewrite, never a wrong file.

Where the exchange is not available (another system, `--out` on another file system than the work folder, an
old kernel), the site is written beside `--out` and renamed over it (`output.swap`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import sys
from pathlib import Path

from skillyard.site import output

RENAME_EXCHANGE = 2
AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically; False when this system cannot (the caller falls back)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    error = ctypes.get_errno()
    if error in (errno.ENOSYS, errno.EINVAL, errno.EXDEV, errno.EOPNOTSUPP):  # kernel or file system: fall back
        return False
    raise OSError(error, os.strerror(error), str(b))


def whole_tree(out: Path, work_dir: Path) -> Path | None:
    """The folder `publish` will write whole, because nothing proves any of it (the first build into `out`, or a
    spare tree without its manifest), made empty now so that part of the site can be written there while the rest
    is being made (`output.write_early`); None when `publish` will bring a tree it trusts up to date."""
    home = output._tree_home(work_dir, out)
    home.mkdir(parents=True, exist_ok=True)
    if not os.path.isdir(out) or os.path.islink(out) or not _same_device(home, out):
        return output.staging_beside(out)
    if os.path.lexists(home / "spare.json"):
        return None  # (a manifest that does not hold together costs a whole write, as it always did)
    spare = home / "spare"
    output.remove(spare)
    spare.mkdir()
    return spare


def publish(out: Path, work_dir: Path, plan: output.Plan,
            early: tuple[Path, dict | None] | None = None) -> dict[str, int]:
    """Make the real folder `out` hold exactly `plan`; returns counts of files written and kept. `early`: the
    folder from `whole_tree` and what `output.write_early` recorded of the files written there (None: nothing
    to trust)."""
    home = output._tree_home(work_dir, out)
    spare, spare_manifest, live_manifest = home / "spare", home / "spare.json", home / "live.json"
    home.mkdir(parents=True, exist_ok=True)
    tree, known = early or (None, None)
    if not os.path.isdir(out) or os.path.islink(out) or not _same_device(home, out):
        output.remove(live_manifest)  # the first build, or from the A/B trees: written whole, with its manifest
        staging = tree if tree is not None and tree.parent == out.parent else None
        return output.swap(out, plan, live_manifest if not os.path.lexists(out) or os.path.islink(out) else None,
                           staging, known if staging is not None else None)
    if tree is not None and tree != spare:
        output.remove(tree)  # made for a first build, and `out` has appeared since
    counts = output.sync(spare, spare_manifest, plan, known if tree == spare else None)
    if not _exchange(spare, out):
        output.remove(spare_manifest)
        output.remove(live_manifest)
        return output.swap(out, plan)
    moved = home / "moving.json"  # the manifests follow their trees: spare.json <-> live.json
    output.remove(moved)
    if os.path.lexists(live_manifest):
        os.replace(live_manifest, moved)
    os.replace(spare_manifest, live_manifest)
    if os.path.lexists(moved):
        os.replace(moved, spare_manifest)
    return counts


def _same_device(home: Path, out: Path) -> bool:
    try:
        return os.stat(home).st_dev == os.lstat(out).st_dev
    except OSError:
        return False


def write_early_in_child(tree: Path, plan: output.Plan, parent: int) -> dict | None:
    """`output.write_early` in a forked child (`overlap.Background`); in the build's own process (the child failed,
    or there is no fork) None, so `publish` writes the whole tree and reports any real error itself."""
    return output.write_early(tree, plan) if os.getpid() != parent else None
