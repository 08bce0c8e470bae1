"""GitHub on 127.0.0.1 for the real upstream repositories in ../shared/upstream (the real-world session).

../shared/upstream holds, per repository, the tarballs codeload served at two real commits (`pin`, the commit the
public registry points at, and `older`), a shallow bare git repository whose HEAD is the pin's real commit, and
index.json. The real history between the two commits is not there, so it is presented as two commits,
older -> pin: `older` touched every folder it holds, `pin` the folders whose files differ.

`UpstreamStandin` is a `GitServer` (tests/support/gitserver.py), so it also serves ordinary git repositories made
with `create_repo` (the registry under test); the upstream repositories answer from the tarballs, in the same
layouts and env vars the tools read (SKILL_GITHUB_API_URL / _CODELOAD_URL / _RAW_URL all point at `url`):
- codeload: /{owner}/{repo}/tar.gz/{ref}   -> the real tarball bytes
- raw:      /{owner}/{repo}/{ref}/{path}   -> the file out of that commit's tarball
- REST:     /repos/{o}/{r} (default branch, licence as GitHub names it), /repos/{o}/{r}/license,
            /repos/{o}/{r}/commits/{ref}, /repos/{o}/{r}/commits?sha=&path=&per_page=, /repos/{o}/{r}/compare/a...b,
            /repos/{o}/{r}/tags (none), /repos/{o}/{r}/contents/{path}?ref=
ref = a full or abbreviated sha of the two, the default branch, or HEAD (both name `head`, the pin unless
`present_head("older")`). Every answer has a strong ETag (If-None-Match -> 304), as GitHub's do.
`git_http()` serves the shallow repositories over git's smart HTTP (tests/interop/githttp.py) at
`{base}/{owner}/{repo}.git`, with `uploadpack.allowAnySHA1InWant` and `uploadpack.allowFilter` set.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import tarfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from tests.support.gitserver import GitServer, Request, _Handler, git

# ../shared/upstream beside the project root; SKILLYARD_SHARED_UPSTREAM names another (a test of the skip does).
SHARED_UPSTREAM = Path(os.environ.get("SKILLYARD_SHARED_UPSTREAM")
                       or Path(__file__).resolve().parents[2].parent / "shared" / "upstream")

# What GitHub's licence detection (licensee) names the common texts; the first line that matches wins.
_SPDX_TEXTS = [
    ("Apache-2.0", re.compile(r"Apache License\s+Version 2\.0", re.I)),
    ("MPL-2.0", re.compile(r"Mozilla Public License,?\s+Version 2\.0", re.I)),
    ("GPL-3.0", re.compile(r"GNU GENERAL PUBLIC LICENSE\s+Version 3", re.I)),
    ("BSD-3-Clause", re.compile(r"Neither the name of .{1,200}? nor the names of", re.I | re.S)),
    ("MIT", re.compile(r"Permission is hereby granted, free of charge, to any person obtaining a copy", re.I)),
    ("ISC", re.compile(r"Permission to use, copy, modify, and(/or)? distribute this software", re.I)),
]
_LICENCE_NAMES = {"MIT": "MIT License", "Apache-2.0": "Apache License 2.0", "MPL-2.0": "Mozilla Public License 2.0",
                  "GPL-3.0": "GNU General Public License v3.0", "BSD-3-Clause": 'BSD 3-Clause "New" or "Revised" '
                  "License", "ISC": "ISC License"}


def spdx_of(text: str) -> str:
    """The SPDX id GitHub reports for a licence text, or NOASSERTION (GitHub's answer for a text it cannot name)."""
    for spdx, pattern in _SPDX_TEXTS:
        if pattern.search(text):
            return spdx
    return "NOASSERTION"


@dataclass
class Tree:
    """One commit's files out of its codeload tarball: path -> (bytes, executable)."""

    sha: str
    tarball: Path
    files: dict[str, tuple[bytes, bool]]

    @classmethod
    def load(cls, sha: str, tarball: Path) -> Tree:
        files: dict[str, tuple[bytes, bool]] = {}
        with tarfile.open(tarball, "r:gz") as archive:
            for member in archive.getmembers():
                if member.isfile():
                    rel = member.name.split("/", 1)[1]
                    files[rel] = (archive.extractfile(member).read(), bool(member.mode & 0o111))
        return cls(sha, tarball, files)

    def folder(self, folder: str) -> dict[str, tuple[bytes, bool]]:
        """The files under `folder`, relative to it ({} when the folder is not in this commit)."""
        prefix = folder.strip("/") + "/"
        return {p[len(prefix):]: v for p, v in self.files.items() if p.startswith(prefix)}

    def under(self, path: str) -> dict[str, tuple[bytes, bool]]:
        """The file `path` itself, or the files under it when it is a folder ('' is the whole tree)."""
        path = path.strip("/")
        if not path:
            return dict(self.files)
        if path in self.files:
            return {path: self.files[path]}
        return {p: v for p, v in self.files.items() if p.startswith(path + "/")}


@dataclass
class Upstream:
    """One repository of index.json: its two trees, facts and what GitHub would say of it."""

    owner: str
    repo: str
    entry: dict
    trees: dict[str, Tree] = field(default_factory=dict)  # "pin" / "older" -> Tree
    head: str = "pin"

    @property
    def slug(self) -> str:
        return f"{self.owner}/{self.repo}"

    def sha(self, which: str) -> str:
        return self.entry[which]["sha"]

    def resolve(self, ref: str) -> str | None:
        """'pin'/'older' for a ref naming one of the two commits (full or >= 7-hex sha, branch, HEAD), else None."""
        ref = ref.removeprefix("refs/heads/")
        if ref in ("HEAD", self.entry["default_branch"]):
            return self.head
        if re.fullmatch(r"[0-9a-f]{7,40}", ref):
            found = [w for w in ("pin", "older") if self.sha(w).startswith(ref)]
            return found[0] if len(found) == 1 else None
        return None

    def licence(self) -> tuple[str, str, bytes] | None:
        """(path, SPDX id, bytes) of the root licence file index.json names, as the pin has it."""
        for name in self.entry.get("licence_files") or ():
            found = self.trees["pin"].files.get(name)
            if found:
                return name, spdx_of(found[0].decode("utf-8", "replace")), found[0]
        return None

    def touched(self, which: str, path: str) -> bool:
        """Did commit `which` change `path`, in the two-commit history (older is the root, pin its child)?"""
        mine = self.trees[which].under(path)
        if which == "older":
            return bool(mine)
        return mine != self.trees["older"].under(path)

    def commit_json(self, which: str, base_url: str) -> dict:
        """The REST API's commit object (dates in UTC, as GitHub gives them); pin's parent is `older`."""
        entry = self.entry[which]

        def utc(stamp: str) -> str:
            return datetime.fromisoformat(stamp).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

        parents = [self.sha("older")] if which == "pin" else list(entry.get("parents") or [])
        person = {"name": "Upstream", "email": "upstream@example.invalid"}
        return {"sha": entry["sha"], "url": f"{base_url}/repos/{self.slug}/commits/{entry['sha']}",
                "html_url": f"https://github.com/{self.slug}/commit/{entry['sha']}",
                "commit": {"author": {**person, "date": utc(entry["authored_at"])},
                           "committer": {**person, "date": utc(entry["committed_at"])},
                           "message": f"{which} commit of {self.slug}"},
                "parents": [{"sha": p} for p in parents]}


class UpstreamStandin(GitServer):
    """`UpstreamStandin(tmp, SHARED_UPSTREAM).start()`; `url` serves API, codeload and raw for the four upstreams
    and for any repository made with `create_repo`."""

    def __init__(self, root: Path, shared: Path = SHARED_UPSTREAM):
        super().__init__(root)
        self.shared = Path(shared)
        self.index = json.loads((self.shared / "index.json").read_text(encoding="utf-8"))
        self.upstreams: dict[tuple[str, str], Upstream] = {}
        for entry in self.index["repositories"]:
            owner, repo = entry["repository"].split("/")
            up = Upstream(owner, repo, entry)
            folder = self.shared / f"{owner}+{repo}"
            for which in ("pin", "older"):
                up.trees[which] = Tree.load(entry[which]["sha"], folder / entry[which]["tarball"])
            self.upstreams[(owner, repo)] = up
        self._git_httpd = None
        self.handler_base = _StandinHandler
        self.handler_attrs = {"standin": self}

    def stop(self) -> None:
        if self._git_httpd is not None:
            self._git_httpd.shutdown()
            self._git_httpd.server_close()
            self._git_httpd = None
        super().stop()

    def upstream(self, slug: str) -> Upstream:
        owner, repo = slug.split("/")
        return self.upstreams[(owner, repo)]

    def present_head(self, which: str) -> None:
        """Point every upstream's default branch at `which` ("pin" or "older")."""
        for up in self.upstreams.values():
            up.head = which

    def pointer(self, slug: str, folder: str, which: str = "pin") -> dict[str, tuple[bytes, bool]]:
        """The files of one pointer folder at `which`, relative to the folder."""
        return self.upstream(slug).trees[which].folder(folder)

    # ---- git over smart HTTP ----------------------------------------------------------------------------------
    def git_http(self) -> tuple[str, list[str], Path | None]:
        """Serve the shallow pin repositories over git's smart HTTP; returns (base URL, request log, CA file).

        Over HTTPS with a throwaway CA where tests/interop/githttp.py can (Claude Code 2.1.332 runs a partial clone's
        lazy fetch over https only), else over plain HTTP (CA file None)."""
        import inspect
        import subprocess

        from tests.interop.githttp import serve

        if self._git_httpd is None:
            for (owner, repo), up in self.upstreams.items():
                target = self.root / "repos" / owner / repo
                if not target.exists():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    tgz = self.shared / f"{owner}+{repo}" / up.entry["pin"]["git"]
                    subprocess.run(["tar", "-xzf", str(tgz), "-C", str(target.parent)], check=True)
                    (target.parent / f"{owner}+{repo}.git").rename(target)
                    head = git(target, "rev-parse", "HEAD").decode().strip()
                    if head != up.sha("pin"):
                        raise RuntimeError(f"{tgz}: HEAD is {head}, not the pin {up.sha('pin')}")
                    git(target, "config", "uploadpack.allowFilter", "true")
                    git(target, "config", "uploadpack.allowReachableSHA1InWant", "true")
                self.state.repos[(owner, repo)] = target
            tls = {"tls_dir": self.root / "tls"} if "tls_dir" in inspect.signature(serve).parameters else {}
            self._git_httpd, self.git_url, self.git_log = serve(self, **tls)
        return self.git_url, self.git_log, getattr(self._git_httpd, "ca_file", None)


class _StandinHandler(_Handler):
    standin: UpstreamStandin

    def _serve(self, record: Request) -> None:
        path = urlsplit(self.path).path
        parts = [unquote(p) for p in path.split("/")[1:]]
        api = parts[:1] == ["repos"]
        key = (parts[1], parts[2]) if api and len(parts) >= 3 else (parts[0], parts[1]) if len(parts) >= 2 else None
        up = self.standin.upstreams.get(key) if key else None
        if up is None:
            super()._serve(record)
            return
        if api:
            self._serve_upstream_api(record, up, parts[3:], dict(parse_qsl(urlsplit(self.path).query)))
        elif len(parts) == 4 and parts[2] == "tar.gz":
            which = up.resolve(parts[3])
            if which is None:
                self._not_found(record)
                return
            self._send_bytes(record, up.trees[which].tarball.read_bytes(), "application/x-gzip")
        elif len(parts) >= 4:
            which = up.resolve(parts[2])
            found = up.trees[which].files.get("/".join(parts[3:])) if which else None
            if found is None:
                self._send(record, 404, b"404: Not Found\n", {"Content-Type": "text/plain"})
                return
            self._send_bytes(record, found[0], "text/plain; charset=utf-8")
        else:
            self._not_found(record)

    def _not_found(self, record: Request, status: int = 404, message: str = "Not Found") -> None:
        self._send(record, status, json.dumps({"message": message}).encode(), {"Content-Type": "application/json"})

    def _send_bytes(self, record: Request, body: bytes, ctype: str) -> None:
        etag = '"' + hashlib.sha256(body).hexdigest()[:40] + '"'
        if self.headers.get("If-None-Match") == etag:
            self._send(record, 304, headers={"ETag": etag})
            return
        self._send(record, 200, body, {"Content-Type": ctype, "ETag": etag, "Cache-Control": "max-age=300"})

    def _serve_upstream_api(self, record: Request, up: Upstream, rest: list[str], query: dict) -> None:
        base = f"http://{self.headers.get('Host', '127.0.0.1')}"
        if not rest:
            licence = up.licence()
            spdx = licence[1] if licence else None
            self._send_api(record, {
                "full_name": up.slug, "name": up.repo, "owner": {"login": up.owner}, "private": False,
                "default_branch": up.entry["default_branch"], "html_url": f"https://github.com/{up.slug}",
                "license": {"key": spdx.lower(), "spdx_id": spdx, "name": _LICENCE_NAMES.get(spdx, "Other")}
                if spdx else None})
        elif rest == ["license"]:
            licence = up.licence()
            if licence is None:
                self._not_found(record)
                return
            name, spdx, data = licence
            self._send_api(record, {"name": name, "path": name, "size": len(data), "type": "file",
                                    "encoding": "base64", "content": base64.b64encode(data).decode(),
                                    "license": {"key": spdx.lower(), "spdx_id": spdx,
                                                "name": _LICENCE_NAMES.get(spdx, "Other")}})
        elif rest == ["tags"]:
            self._send_api(record, [])
        elif rest == ["commits"]:
            which = up.resolve(query.get("sha", "HEAD"))
            if which is None:
                self._not_found(record)
                return
            chain = ["pin", "older"] if which == "pin" else ["older"]
            hits = [w for w in chain if not query.get("path") or up.touched(w, query["path"])]
            per_page = max(1, min(100, int(query.get("per_page") or 30)))
            self._send_api(record, [up.commit_json(w, base) for w in hits[:per_page]])
        elif len(rest) >= 2 and rest[0] == "commits":
            ref = "/".join(rest[1:])
            which = up.resolve(ref)
            if which is None:
                self._not_found(record, 422, f"No commit found for SHA: {ref}")
            elif self.headers.get("Accept") == "application/vnd.github.sha":
                self._send(record, 200, up.sha(which).encode(), {"Content-Type": "application/vnd.github.sha"})
            else:
                self._send_api(record, up.commit_json(which, base))
        elif len(rest) >= 2 and rest[0] == "compare":
            base_ref, sep, head_ref = "/".join(rest[1:]).partition("...")
            old, new = (up.resolve(base_ref), up.resolve(head_ref)) if sep else (None, None)
            if old is None or new is None:
                self._not_found(record)
                return
            ahead = int(old == "older" and new == "pin")
            behind = int(old == "pin" and new == "older")
            status = "ahead" if ahead else "behind" if behind else "identical"
            self._send_api(record, {"status": status, "ahead_by": ahead, "behind_by": behind, "total_commits": ahead,
                                    "merge_base_commit": {"sha": up.sha("older" if "older" in (old, new) else "pin")},
                                    "commits": [up.commit_json("pin", base)] if ahead else []})
        elif rest and rest[0] == "contents":
            self._serve_contents(record, up, "/".join(rest[1:]), query.get("ref", "HEAD"))
        else:
            self._not_found(record)

    def _serve_contents(self, record: Request, up: Upstream, path: str, ref: str) -> None:
        """`GET /repos/{o}/{r}/contents/{path}?ref=`: a file (base64) or a folder's listing."""
        which = up.resolve(ref)
        tree = up.trees[which] if which else None
        if tree is None:
            self._not_found(record)
            return
        path = path.strip("/")

        def item(p: str, data: bytes) -> dict:
            return {"type": "file", "name": p.rsplit("/", 1)[-1], "path": p, "size": len(data),
                    "sha": hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()}

        if path in tree.files:
            data = tree.files[path][0]
            self._send_api(record, {**item(path, data), "encoding": "base64",
                                    "content": base64.b64encode(data).decode()})
            return
        below = tree.under(path)
        if not below:
            self._not_found(record)
            return
        listing: dict[str, dict] = {}
        prefix = path + "/" if path else ""
        for p, (data, _) in below.items():
            head, _, tail = p[len(prefix):].partition("/")
            if tail:
                listing.setdefault(head, {"type": "dir", "name": head, "path": prefix + head, "size": 0})
            else:
                listing[head] = item(p, data)
        self._send_api(record, [listing[k] for k in sorted(listing)])
