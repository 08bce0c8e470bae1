"""Downloading a skill's files and proving they are the ones published: every file's size and sha256, nothing
extra, and the whole-skill integrity; each download capped and through the client's HTTP layer (retries, deadline,
a token only for its origin).
"""

from __future__ import annotations

import os

from skillyard.client import store
from skillyard.client.install_policy import download_cap, over_download_cap
from skillyard.client.store import StagedFile
from skillyard.errors import SkillyardError


def verify_files(files: list[StagedFile], expected: list[dict], *, integrity: str | None, what: str) -> None:
    """Every expected file present with its size and sha256, nothing extra, and the whole-set integrity."""
    got = {f.path: f for f in files}
    for entry in expected:
        item = got.get(entry["path"])
        if item is None:
            raise SkillyardError(f"{what}: the file {entry['path']} is missing; nothing was installed.",
                                 "The source changed under its pin; try again later or report it to its owner.")
        if len(item.data) != entry["size"]:
            raise SkillyardError(f"{what}: {entry['path']} is {len(item.data)} bytes, but {entry['size']} were "
                                 "expected; nothing was installed.",
                                 "The download was cut short or the file was changed; try again, or report it.")
        if item.sha256 != entry["sha256"]:
            raise SkillyardError(f"{what}: the sha256 of {entry['path']} does not match ({item.sha256[:12]}… "
                                 f"instead of {entry['sha256'][:12]}…); nothing was installed.",
                                 "The file was tampered with or corrupted on the way; do not install it. "
                                 "Report it to the registry's maintainers.")
    extra = sorted(set(got) - {e["path"] for e in expected})
    if extra:
        raise SkillyardError(f"{what}: unexpected file(s) {', '.join(extra)}; nothing was installed.",
                             "Report it to the registry's maintainers.")
    if integrity:
        actual = integrity_of(files)
        if actual != integrity:
            raise SkillyardError(f"{what}: the skill's integrity {actual} does not match {integrity}; "
                                 "nothing was installed.", "Report it to the registry's maintainers.")


def integrity_of(files: list[StagedFile]) -> str:
    """The registry's one digest over a file list (StagedFile has the `path` and `sha256` it reads)."""
    from skillyard.format.package import integrity_of as integrity

    return integrity(files)


def download(url: str, config, *, token: str | None = None, max_bytes: int | None = None) -> bytes:
    """Bytes at `url` through the client's HTTP layer (retries, deadline, size cap, token only to its origin)."""
    from skillyard.client import http

    if is_offline(config):  # the one place a skill's bytes are downloaded: --offline stops every path here
        raise SkillyardError(f"{http.safe_url(url)}: --offline forbids the network, and these bytes are not on "
                             "this machine; nothing was installed.", "Run the command again without --offline.")
    limit = {} if max_bytes is None else {"max_bytes": max_bytes}
    return http.fetch(url, token=token, **http.settings(config), **limit).body


def download_capped(url: str, config, *, token: str | None, what: str) -> bytes:
    """`download` with the client's download cap; going over it says which setting raises it."""
    from skillyard.client.http import FetchError

    cap = download_cap(config)
    try:
        return download(url, config, token=token, max_bytes=cap)
    except FetchError as exc:
        if exc.kind == "too-large":
            raise over_download_cap(what, "larger than that", cap) from None
        raise


def github_token(config) -> str | None:
    for name in ("SKILL_GITHUB_TOKEN", "GITHUB_TOKEN"):
        if os.environ.get(name):
            return os.environ[name]
    return None


def is_offline(config) -> bool:
    """`--offline` was given (config.flags["offline"]): nothing may be downloaded."""
    return bool(config is not None and getattr(config, "flags", {}).get("offline"))


COPIES = "verified copies already installed on this machine (each sha256 checked)"


def reuse_note(what: str, reused: list[str], total: int, *, why: str = "") -> str | None:
    """What an install says when it took files from verified copies already on this machine instead of downloading
    them (`fetch_files` never requests those, so "not downloaded" is the whole truth); None when it took none, so
    an install that downloaded everything says nothing. `why` adds what kept the network out of it, if anything
    (`--offline`, or a registry whose index could not be refreshed)."""
    if not reused:
        return None
    shown = ", ".join(reused[:3]) + (", ..." if len(reused) > 3 else "")
    if len(reused) == total:
        said = f"all {total} file(s) taken from {COPIES}; nothing was downloaded"
    else:
        said = (f"{len(reused)} of {total} file(s) ({shown}) taken from {COPIES} instead of downloaded; the other "
                f"{total - len(reused)} were downloaded")
    return f"{what}: {said}" + (f"; {why}" if why else "")


def fetch_files(name: str, entries: list[dict], url_for, config, *, token: str | None, progress=None,
                what: str, reused: list[str] | None = None) -> list[StagedFile]:
    """Download every listed file (a few at a time) and verify each against its size and sha256; a file an
    installed copy already holds byte for byte is taken from there instead (its path is added to `reused`)."""
    from concurrent.futures import ThreadPoolExecutor

    from skillyard.client import local_copy

    reused = [] if reused is None else reused
    store.check_paths([entry["path"] for entry in entries])  # before the first request: refuse the list itself
    # Files an installed copy already holds with the same sha256 are not downloaded (client/local_copy.py)
    executable = {e["path"]: bool(e.get("executable")) for e in entries}
    out: dict[str, StagedFile] = {path: StagedFile(path, data, executable[path])
                                  for path, data in (local_copy.reuse(entries) if entries else {}).items()}
    wanted = [e for e in entries if e["path"] not in out]
    if wanted and is_offline(config):
        listed = ", ".join(e["path"] for e in wanted[:5]) + (", ..." if len(wanted) > 5 else "")
        raise SkillyardError(f"{what}: {len(wanted)} file(s) are not on this machine ({listed}) and --offline "
                             "forbids downloading them; nothing was installed.",
                             "Run the command again without --offline.")
    reused.extend(sorted(out))
    bar = progress(f"downloading {name}", len(wanted)) if progress and wanted else None
    try:
        with ThreadPoolExecutor(max_workers=min(8, max(1, len(wanted)))) as pool:
            futures = {pool.submit(download, url_for(e["path"]), config, token=token, max_bytes=e["size"]): e
                       for e in wanted}
            for future, entry in futures.items():
                out[entry["path"]] = StagedFile(entry["path"], future.result(), bool(entry.get("executable")))
                if bar:
                    bar.advance()
    finally:
        if bar:
            bar.close()
    files = [out[e["path"]] for e in entries]
    verify_files(files, entries, integrity=None, what=what)
    return files
