"""`skillyard external bump`: move each pointer's pin to the newest commit on its tracked ref that changed its folder.

Cost: one conditional request per (repository, tracked ref) for the head (the tags list for a tag pattern); when
the head is the one recorded at the last run, every pointer found current then is current now, so R repositories
cost at most R requests (answered 304, which GitHub does not count against the rate limit). Only when the head
moved is each folder asked for (`commits?sha=<head>&path=<folder>&per_page=1`), and a new commit is compared with
the pin (`compare/<pin>...<new>`): only `ahead` is a bump; `identical`/`behind` mean the folder has not changed
since the pin; `diverged` or an unknown pin (a force-push) refuses that pointer. ETags and the recorded heads live
in the registry's `.skillyard-cache/` (bounded; deleting it only costs requests).

No cache decides alone: a cached value (an ETag answered 304) may only say "nothing moved". The compare that lets a
pin move is always asked in full (never conditionally, never stored), and when the head or the folder's commit that
leads to a bump came from the cache, both are asked again in full before the pin moves, so a planted cache entry
can at worst cost requests or hold a pin where it is.

A bump re-adds through `external.prepare` (the same download, checks and scan as `add`; any refusal writes
nothing), keeps the registry block, and resets `verification` to `{verified: false}`.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote, urlencode

from skillyard.errors import SkillyardError
from skillyard.format.githubref import GitHubRef
from skillyard.format.pointer import POINTER_FILE, parse_pointer, read_pointer_file
from skillyard.format.pointer_change import summarise_change
from skillyard.fsutil import write_atomic
from skillyard.registry.config import RegistryConfig
from skillyard.registry.external import API_MAX_BYTES, SHA, Get, Hosts, Prepared, checked_text, prepare
from skillyard.registry.external_verify import pointer_by_name, pointer_folders

# fetch(url, *, accept, max_bytes, etag) -> (not_modified, body, etag); raises SkillyardError (`status` set for
# an HTTP answer).
Fetch = Callable[..., tuple[bool, bytes, str | None]]
CACHE_FILE = ".skillyard-cache/external-bump.json"
MAX_CACHE_BYTES = 4 * 1024 * 1024
MAX_ETAGS = 4096
MAX_TAGS = 100  # one page of the tags list: the newest matching tag among them


class BumpCache:
    """ETags (with the one value bump took from each answer) and the heads seen last run, as one JSON file."""

    def __init__(self, path: Path):
        self.path = path
        self.etags: dict[str, dict] = {}
        self.heads: dict[str, dict] = {}
        try:
            raw = path.read_bytes()[:MAX_CACHE_BYTES + 1] if path.is_file() else b""
            doc = json.loads(raw) if raw and len(raw) <= MAX_CACHE_BYTES else {}
        except (OSError, ValueError):
            doc = {}
        if isinstance(doc, dict) and isinstance(doc.get("etags"), dict) and isinstance(doc.get("heads"), dict):
            self.etags = {k: v for k, v in doc["etags"].items() if isinstance(v, dict) and isinstance(v.get("etag"), str)}
            self.heads = {k: v for k, v in doc["heads"].items() if isinstance(v, dict)}

    def remember(self, url: str, etag: str | None, value: object) -> None:
        self.etags.pop(url, None)
        if etag and len(etag) <= 200:
            self.etags[url] = {"etag": etag, "value": value}
        while len(self.etags) > MAX_ETAGS:  # the oldest go first
            del self.etags[next(iter(self.etags))]

    def save(self) -> None:
        text = json.dumps({"etags": self.etags, "heads": self.heads}, sort_keys=False)
        if len(text) <= MAX_CACHE_BYTES:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, text)


class Api:
    """Conditional GETs of the REST API: an answer whose ETag still holds gives the value taken last time."""

    def __init__(self, fetch: Fetch, hosts: Hosts, cache: BumpCache):
        self.fetch, self.hosts, self.cache = fetch, hosts, cache
        self.from_cache: set[str] = set()  # paths whose last value came from the cache (a 304)

    def value(self, path: str, pick: Callable[[object], object], what: str, *, fresh: bool = False) -> object:
        """`fresh`: ask without If-None-Match and keep nothing, so the value is the server's answer of now."""
        url = self.hosts.api_url + path
        known = None if fresh else self.cache.etags.get(url)
        self.from_cache.discard(path)
        try:
            not_modified, body, etag = self.fetch(url, accept="application/vnd.github+json",
                                                  max_bytes=API_MAX_BYTES, etag=known["etag"] if known else None)
        except SkillyardError as exc:
            if getattr(exc, "status", None) in (404, 422):
                raise Refusal(f"{what}: not found ({url})") from None
            raise Refusal(f"{what}: {exc.message}") from None
        if not_modified and known is not None:
            self.from_cache.add(path)
            return known["value"]
        try:
            value = pick(json.loads(body))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            value = None
        if value is None:
            raise Refusal(f"{what}: the API's answer is not what was asked for ({url})")
        self.cache.remember(url, None if fresh else etag, value)  # a full answer drops what was stored for it
        return value


class Refusal(Exception):
    """This pointer cannot be bumped; the message says why (other pointers go on)."""


def _sha(value: object) -> str | None:
    return value if isinstance(value, str) and SHA.fullmatch(value) else None


def version_key(name: str) -> tuple:
    """Sort key of a tag: its numbers compare as numbers (v1.10.0 after v1.9.0), the rest as text."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.findall(r"\d+|\D+", name))


def _head_path(repo: str, tracks: str) -> str:
    return f"/repos/{repo}/tags?per_page={MAX_TAGS}" if "*" in tracks else f"/repos/{repo}/commits/{quote(tracks, safe='')}"


def _head(api: Api, repo: str, tracks: str, *, fresh: bool = False) -> tuple[str, str]:
    """(label of what is tracked, its commit now): the branch's head, or the newest tag matching the pattern."""
    if "*" in tracks:
        def newest(tags: object) -> object:
            names = [(t["name"], t["commit"]["sha"]) for t in tags[:MAX_TAGS]
                     if isinstance(t.get("name"), str) and fnmatch.fnmatchcase(t["name"], tracks)]
            return max(names, key=lambda n: version_key(n[0])) if names else ["", ""]
        found = api.value(_head_path(repo, tracks), newest, f"github:{repo} tags {tracks}", fresh=fresh)
        name, sha = found if isinstance(found, list | tuple) and len(found) == 2 else ("", "")
        if not isinstance(name, str) or not name:
            raise Refusal(f"github:{repo}: no tag matches `{tracks}`")
        if not _sha(sha):
            raise Refusal(f"github:{repo}: the tag {name} names no full commit SHA")
        return name, sha
    sha = api.value(_head_path(repo, tracks), lambda d: _sha(d.get("sha")), f"github:{repo}@{tracks}", fresh=fresh)
    if not _sha(sha):  # a cached value is checked like a fresh one
        raise Refusal(f"github:{repo}@{tracks}: no full commit SHA")
    return tracks, sha


def _folder_path(repo: str, head: str, path: str) -> str:
    query = urlencode({"sha": head, "path": path, "per_page": 1}) if path else urlencode({"sha": head, "per_page": 1})
    return f"/repos/{repo}/commits?{query}"


def _folder_commit(api: Api, repo: str, head: str, path: str, *, fresh: bool = False) -> str | None:
    """The newest commit reachable from `head` that changed `path` (None: no commit touches it)."""
    def first(commits: object) -> object:
        return [_sha(commits[0]["sha"])] if commits else [None]
    found = api.value(_folder_path(repo, head, path), first, f"github:{repo}/{path}@{head[:12]}", fresh=fresh)
    return _sha(found[0]) if isinstance(found, list) and found else None


def _relation(api: Api, repo: str, old: str, new: str) -> str:
    """How `new` relates to `old` (GitHub's compare status); an unknown pin is a rewritten history. Always asked in
    full: this answer is what lets a pin move, so it is never taken from (or kept in) the cache."""
    try:
        status = api.value(f"/repos/{repo}/compare/{old}...{new}",
                           lambda d: d.get("status") if d.get("status") in ("ahead", "behind", "identical", "diverged")
                           else None, f"github:{repo} compare {old[:12]}...{new[:12]}", fresh=True)
    except Refusal as exc:
        if "not found" not in str(exc):
            raise
        raise Refusal(f"github:{repo}: the pinned commit {old[:12]} cannot be compared with {new[:12]} (not found): "
                      "history was rewritten (a force-push) or the pin is not in the repository. A bump never moves "
                      "to a commit the pin does not lead to; a maintainer re-adds the skill by hand") from None
    if status not in ("ahead", "behind", "identical", "diverged"):
        raise Refusal(f"github:{repo}: the compare status of {old[:12]}...{new[:12]} is unknown")
    return str(status)


def load_pointers(config: RegistryConfig, names: list[str]) -> list[tuple[Path, dict]]:
    """(source.yaml path, document) of every pointer at any depth, or of the named ones (`alpha` or `group/alpha`);
    an unknown name is an error."""
    found = []
    root = config.skills_dir
    folders = pointer_folders(root)  # grouped ones too: the build publishes them
    by_name = pointer_by_name(root, folders)
    missing = [n for n in names if n not in by_name]
    if missing:
        raise SkillyardError(f"no pointer entry named {', '.join(missing[:5])} in {root}",
                             "Name skills whose folder holds a source.yaml (`skillyard external add` writes one).")
    for folder in dict.fromkeys(by_name[n] for n in names) if names else folders:
        text, problem = read_pointer_file(str(folder / POINTER_FILE))
        pointer, problems = parse_pointer(text, folder_name=folder.name) if text is not None else (None, [problem])
        if pointer is None:
            raise SkillyardError(f"{folder / POINTER_FILE}: {problems[0].message}", problems[0].fix)
        found.append((folder / POINTER_FILE, pointer.data))
    return found


def _plan(api: Api, data: dict, heads: dict) -> tuple[str, str | None, str]:
    """("current" | "bump", the new commit, what to say) for one pointer; raises Refusal. A bump planned on a head
    or folder commit the cache gave (a 304) is planned again on full answers: only they may move a pin."""
    up = data["upstream"]
    repo, tracks = up["repository"], up["tracks"]
    label, head = heads[(repo, tracks)]
    verdict = _plan_at(api, data, label, head, fresh=False)
    if verdict[0] == "bump" and api.from_cache & {_head_path(repo, tracks), _folder_path(repo, head, up["path"])}:
        label, head = heads[(repo, tracks)] = _head(api, repo, tracks, fresh=True)  # the others use it too
        verdict = _plan_at(api, data, label, head, fresh=True)
    return verdict


def _plan_at(api: Api, data: dict, label: str, head: str, *, fresh: bool) -> tuple[str, str | None, str]:
    up = data["upstream"]
    repo, tracks, pin, path = up["repository"], up["tracks"], up["commit"], up["path"]
    if head == pin:
        return "current", None, f"at the head of {label}"
    seen = api.cache.heads.get(f"{repo}@{tracks}") or {}
    if seen.get("head") == head and (seen.get("current") or {}).get(data["name"]) == pin:
        return "current", None, f"{label} has not moved since the last run"
    newest = _folder_commit(api, repo, head, path, fresh=fresh)
    if newest is None:
        raise Refusal(f"github:{repo}/{path}: no commit on {label} touches the folder (was it removed?)")
    relation = "identical" if newest == pin else _relation(api, repo, pin, newest)
    if relation in ("identical", "behind"):
        return "current", None, f"the folder has not changed on {label} since the pin"
    if relation != "ahead":
        raise Refusal(f"github:{repo}: the pin {pin[:12]} does not lead to {newest[:12]} on {label}: history "
                      "diverged or was rewritten (a force-push). A bump never moves a pin backwards or to a commit "
                      "the pin does not lead to; a maintainer re-adds the skill by hand (`skillyard external add`)")
    # `newest` is reachable from the head (the API listed it from there) and the pin leads to it, so the pin
    # leads to the head too. A tag pattern pins the tag's own commit; a branch the commit that changed the folder.
    target = head if "*" in tracks else newest
    return "bump", target, f"{label}: {pin[:12]} -> {target[:12]}"


def bump(config: RegistryConfig, fetch: Fetch, hosts: Hosts, *, names: list[str] = (), dry_run: bool = False) -> dict:
    """Bump the named pointers (all when none): {"ok", "results": [...]}; each result is current, bumped (or
    would be, in a dry run) or refused with the reason. Writes only the pointers it bumps, and the cache."""
    pointers = load_pointers(config, list(names))
    cache = BumpCache(config.root / CACHE_FILE)
    api = Api(fetch, hosts, cache)
    heads: dict[tuple[str, str], tuple[str, str] | Refusal] = {}
    for _, data in pointers:  # one request per repository and tracked ref
        key = (data["upstream"]["repository"], data["upstream"]["tracks"])
        if key not in heads:
            try:
                heads[key] = _head(api, *key)
            except Refusal as exc:
                heads[key] = exc
    results = []
    for file, data in pointers:
        key = (data["upstream"]["repository"], data["upstream"]["tracks"])
        result = {"name": data["name"], "repository": key[0], "path": data["upstream"]["path"], "tracks": key[1],
                  "commit": data["upstream"]["commit"]}
        try:
            if isinstance(heads[key], Refusal):
                raise heads[key]
            verdict, new, message = _plan(api, data, heads)
            result.update(status=verdict, message=message)
            if verdict == "bump":
                new_data = _readd(config, fetch, hosts, data, new)
                result.update(status="would-bump" if dry_run else "bumped", new_commit=new,
                              summary=summarise_change(data, new_data))
                if not dry_run:
                    write_atomic(file, checked_text_of(new_data))
            else:
                state = cache.heads.setdefault(f"{key[0]}@{key[1]}", {})
                if state.get("head") != heads[key][1]:
                    state.clear()
                    state.update(head=heads[key][1], current={})
                state["current"][data["name"]] = data["upstream"]["commit"]
        except Refusal as exc:
            result.update(status="refused", message=str(exc))
        except SkillyardError as exc:
            result.update(status="refused", message=exc.message + (f" ({exc.fix})" if exc.fix else ""))
        results.append(result)
    if not dry_run:
        cache.save()
    return {"ok": all(r["status"] != "refused" for r in results), "dry_run": dry_run, "results": results}


def checked_text_of(data: dict) -> str:
    return checked_text(Prepared(data, [], f"github:{data['upstream']['repository']}"))


def _readd(config: RegistryConfig, fetch: Fetch, hosts: Hosts, old: dict, commit: str) -> dict:
    """The pointer at `commit` through add's own path (download, checks, scan), with the registry block kept and
    the verification reset; raises SkillyardError on any refusal."""
    up = old["upstream"]
    owner, repo = up["repository"].split("/", 1)
    ref = GitHubRef(owner, repo, up["path"], commit)

    def get(url: str, *, accept: str | None = None, max_bytes: int) -> bytes:
        return fetch(url, accept=accept, max_bytes=max_bytes, etag=None)[1]

    get_: Get = get
    prepared = prepare(ref, config, get_, hosts, name=old["name"], track=up["tracks"], commit=commit,
                       previous=old,
                       allowed=(old.get("registry") or {}).get("security_exceptions") or ())
    data = prepared.data
    if data["upstream"]["path"] != up["path"]:
        raise Refusal(f"github:{up['repository']}: the folder {up['path']} became {data['upstream']['path']}")
    if old.get("registry"):
        data["registry"] = old["registry"]
    data["verification"] = {"verified": False}
    checked_text_of(data)  # refuse here, before anything is written, if the result would not parse
    return data
