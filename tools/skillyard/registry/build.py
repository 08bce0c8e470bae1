"""The registry build: find skills, check them, read git history once, compile, and write or compare outputs."""

from __future__ import annotations

import collections
import contextlib
import functools
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.fsutil import write_atomic
from skillyard.registry import dirsig, gitlog, rendered
from skillyard.registry.cache import CACHE_FILE, SkillCache
from skillyard.registry.checked import CheckedSkill
from skillyard.registry.collect import add_duplicate_findings, collect, repo_prefix  # noqa: F401 (re-exported)
from skillyard.registry.compile import SCHEMA_VERSION, dumps_prepared, fill_line, registry_header
from skillyard.registry.config import RegistryConfig, load_registry_config
from skillyard.registry.load import check_folders
from skillyard.registry.scan import is_skill_folder

CACHE_DIR = ".skillyard-cache"
HISTORY_CACHE = f"{CACHE_DIR}/history.json"


class BuildResult:
    """What a build found and made. `checked` may be given as a function: an incremental build reads the 20,000
    cached results behind it only when someone asks."""

    def __init__(self, checked, outputs: Mapping[str, str] | None = None, skill_count: int = 0, *,
                 invalid: list[CheckedSkill] | None = None):
        self._checked = checked
        self.outputs: Mapping[str, str] = outputs or {}  # repo-relative file → text
        self.skill_count = skill_count
        self._invalid = invalid

    @property
    def checked(self) -> list[CheckedSkill]:
        if callable(self._checked):
            self._checked = self._checked()
        return self._checked

    @property
    def invalid(self) -> list[CheckedSkill]:
        return self._invalid if self._invalid is not None else [c for c in self.checked if not c.valid]

    @property
    def registry(self) -> dict:
        """The registry document (parsed from the output text, so it is exactly what was written)."""
        return json.loads(self.outputs["registry.json"]) if self.outputs else {}


def history(root: Path, folders: list[str], *, head: str | None, top: Path | None,
            use_cache: bool = True) -> dict[str, tuple[str, str]]:
    """Last commit and date per folder (`head` and `top`: the repository's HEAD and top folder, None outside git),
    reusing the cached walk when HEAD moved forward."""
    if head is None or top is None:
        return {}
    cache_path = root / HISTORY_CACHE
    cached: dict = {}
    if use_cache:
        try:
            cached = json.loads(cache_path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            cached = {}
    if not _history_cache_ok(cached):
        cached = {}
    known = {k: tuple(v) for k, v in cached.get("folders", {}).items()}
    old_head = cached.get("head")
    wanted = set(folders)
    if old_head == head and wanted <= set(known) | set(cached.get("missing", [])):
        result = known
    elif old_head and known and gitlog.is_ancestor(top, old_head, head):
        result = dict(known)
        result.update(gitlog.folder_history(top, wanted, since=old_head))
        missing_before = set(cached.get("missing", []))
        unknown = wanted - set(result) - missing_before
        if unknown:
            result.update(gitlog.folder_history(top, unknown))
    else:
        result = gitlog.folder_history(top, wanted)
    result = {k: v for k, v in result.items() if k in wanted}
    if use_cache:
        write_atomic(cache_path, json.dumps({"head": head, "folders": result, "missing": sorted(wanted - set(result))}),
                     mode=0o600)
    return result


def _history_cache_ok(cached: object) -> bool:
    """The history cache's exact shape: its HEAD reaches git commands, its values reach registry.json."""
    from skillyard.registry.cache import COMMIT_ID

    if not isinstance(cached, dict) or not isinstance(cached.get("head"), str) or not COMMIT_ID.fullmatch(cached["head"]):
        return False
    folders, missing = cached.get("folders"), cached.get("missing", [])
    return (isinstance(folders, dict) and isinstance(missing, list) and all(isinstance(m, str) for m in missing)
            and all(isinstance(v, list) and len(v) == 2 and COMMIT_ID.fullmatch(str(v[0])) and isinstance(v[1], str)
                    for v in folders.values()))


def build_registry(root: str | Path = ".", *, mode: str | None = None, skip_invalid: bool = False,
                   use_cache: bool = True, progress_factory=None, config: RegistryConfig | None = None) -> BuildResult:
    """Check every skill under the registry root and compile registry.json, index.json and compat outputs."""
    root = Path(root)
    config = config or load_registry_config(root)
    policy = config.policy(mode)
    caching = use_cache and not os.environ.get("CI")  # CI never trusts a cache a pull request could plant
    head = gitlog.head_commit(root)
    top = gitlog.repo_toplevel(root) if head else None
    skills_rel = skills_folder_in_repo(root, config, top)
    status = None
    if caching and skills_rel is not None and (root / CACHE_FILE).is_file():
        status = gitlog.StatusScan(top, skills_rel, untracked=False)  # runs while the cache loads
    prefetched: tuple[set[str], dict] | None = None
    state: rendered.State | None = None
    watch: dirsig.Watch | None = None
    try:
        cache = SkillCache(root, policy, lazy=True) if caching else None
        if status is not None and cache is not None and cache.stamps is not None and cache.stamps.skills:
            watch = dirsig.Watch(str(top), cache.stamps)  # on another core
        if status is not None and cache is not None and cache.known:
            # While git compares the tracked files: the last build's lines and history, else the history cache.
            state = rendered.load(root, cache.key, cache.token)
            if state is None or not state.head:
                prefetched = set(cache.known), history(root, sorted(cache.known), head=head, top=top, use_cache=caching)
        if watch is not None:  # the check of the changed skills needs it: loaded while the folder stamps are compared
            import skillyard.format.package  # noqa: F401
        folders, fresh, dirty, stamps = _plan(root, config, cache, top=top, skills_rel=skills_rel, status=status,
                                              watch=watch)
    finally:
        if watch is not None:
            watch.close()
        if status is not None:
            status.finish()
    job = _Job(root, config, policy, cache, head, top, skip_invalid, progress_factory, prefetched)
    if cache is not None and fresh is not None:
        state = state or rendered.load(root, cache.key, cache.token)
        try:
            result = _build_spliced(job, state, folders, fresh, dirty, stamps) if state is not None else None
        except rendered.Damaged:  # the last build's lines do not hold together: render every skill again
            result = None
        if result is not None:
            return result
    if cache is not None:
        cache.load_rows()
    progress = progress_factory("checking skills", len(folders)) if progress_factory else None
    checked = check_folders(folders, policy, cache=cache, fresh=fresh, head=head, dirty=dirty(), progress=progress)
    if progress:
        progress.close()
    if cache is not None and stamps is not None:
        cache.store_stamps(stamps[0], replace_all=stamps[1])
    pre_valid = {c.path: c.valid for c in checked}
    add_duplicate_findings(checked)
    invalid = [c for c in checked if not c.valid]
    if cache is not None:  # the finished lines of every skill valid on its own, for the next build to splice
        renderable = [c for c in checked if pre_valid[c.path]]
        git_history = job.history([c.path for c in checked])  # every folder's: the next build asks only what is new
        lines = {c.path: skill_lines(c, git_history.get(c.path, ("", ""))) for c in renderable}
        token = os.urandom(16).hex()  # (secrets.token_hex, without importing secrets)
        if cache.set_token(token):
            _remember(root, cache.key, token, {c.path: rendered.Rendered(
                c.name, pre_valid[c.path], git_history.get(c.path, ("", "")), lines.get(c.path)) for c in checked},
                head=head)
    if invalid and not skip_invalid:
        return BuildResult(checked)
    valid = [c for c in checked if c.valid]
    if cache is None:
        git_history = job.history([c.path for c in valid])
        lines = {c.path: skill_lines(c, git_history.get(c.path, ("", ""))) for c in valid}
    outputs = job.outputs(sorted(((c.name, c.path, lines[c.path]) for c in valid), key=lambda s: (s[0], s[1])))
    return BuildResult(checked, outputs, len(valid))


class _Job:
    """What both ways of building share: the settings, and the history and outputs steps."""

    def __init__(self, root, config, policy, cache, head, top, skip_invalid, progress_factory, prefetched):
        self.root, self.config, self.policy, self.cache = root, config, policy, cache
        self.head, self.top, self.skip_invalid, self.progress_factory = head, top, skip_invalid, progress_factory
        self.prefetched = prefetched

    def history(self, valid_paths: list[str]) -> dict[str, tuple[str, str]]:
        if self.prefetched is not None and self.prefetched[0].issuperset(valid_paths):
            return self.prefetched[1]
        return history(self.root, valid_paths, head=self.head, top=self.top, use_cache=self.cache is not None)

    def outputs(self, ordered: list[tuple[str, str, tuple[str, str, str, str]]]) -> dict[str, str]:
        return self.outputs_from_columns([path for _, path, _ in ordered],
                                         [[lines[column] for _, _, lines in ordered] for column in range(4)])

    def outputs_from_columns(self, paths: list[str], columns: list[list[str]]) -> dict[str, str]:
        header, current = self._header_and_agents()
        return outputs_from_columns(header, paths, columns, agents_md=current)

    def outputs_spliced(self, order: list[str], state: rendered.State, lines: dict) -> Mapping[str, str] | None:
        """`outputs_from_columns` for these skills, copying the state's bytes; None when the state cannot serve (the
        caller then joins its lines as text, which gives the same bytes or the same error)."""
        from skillyard.registry.splice import spliced_outputs

        if not order:
            return None
        try:
            bodies = state.pieces(order, lines)
        except rendered.Damaged:
            raise
        except (KeyError, ValueError):
            return None
        header, current = self._header_and_agents()
        return spliced_outputs(header, bodies, agents_md=current, agents_header=AGENTS_MD_HEADER)

    def _header_and_agents(self) -> tuple[dict, str | None]:
        """The registry document's header fields, and the current AGENTS.md (None when there is none)."""
        config = self.config
        header = registry_header(name=config.name, description=str(config.section.get("description", "")),
                                 homepage=config.section.get("homepage"), repository=config.repository_block())
        agents_md = self.root / "AGENTS.md"
        return header, agents_md.read_text(encoding="utf-8") if agents_md.is_file() else None


def _remember(root: Path, key: str | None, token: str, skills, *, head: str | None,
              base: rendered.State | None = None, changed: set[str] | None = None) -> None:
    with contextlib.suppress(OSError):  # a cache that cannot be written is only slower next time
        rendered.write(root, key, token, skills, head=head, base=base, changed=changed or set())


def _history_updates(job: _Job, state: rendered.State, names: list[str]) -> dict[str, tuple[str, str]]:
    """The folders whose last commit may differ from what `state` recorded (at its HEAD), with their last commit
    now: those the commits since touched, and folders it does not know. Reads only `git log HEAD0..HEAD` when HEAD
    moved forward; otherwise (no recorded HEAD, history rewritten) every folder, from the history cache."""
    head, top = job.head, job.top
    if head is None or top is None or not state.head or (state.head != head
                                                         and not gitlog.is_ancestor(top, state.head, head)):
        known = job.history(names)
        return {rel: known.get(rel, ("", "")) for rel in names}
    updates = {} if state.head == head else gitlog.folder_history(top, names, since=state.head)
    unknown = sorted(set(names).difference(state.paths(), updates))
    if unknown:  # (new folders: their last commit may be older than the recorded HEAD)
        updates.update(gitlog.folder_history(top, unknown))
    return updates


def _build_spliced(job: _Job, state: rendered.State, folders, fresh: set[str], dirty: Callable[[], set[str]],
                   stamps) -> BuildResult | None:
    """The incremental build: check only the fresh folders and splice every other skill's last output lines.

    None when the last build's lines cannot serve (a folder it did not render, a damaged row): the caller then
    builds from the check cache as before, which gives the same bytes.
    """
    cache = job.cache
    names = [rel for _, rel in folders]
    if set(names).difference(fresh).difference(state.paths()):
        return None
    todo = [(folder, rel) for folder, rel in folders if rel in fresh]
    progress = job.progress_factory("checking skills", len(todo)) if job.progress_factory else None
    new = {c.path: c for c in check_folders(todo, job.policy, progress=progress)}
    if progress:
        progress.close()
    updates = _history_updates(job, state, names)  # (git reads the changed folders' status meanwhile: `dirty`)
    seen = state.seen()
    for rel in set(seen).difference(names):
        del seen[rel]
    seen.update({rel: (skill.name, skill.valid) for rel, skill in new.items()})
    taken = [name for name, _ in seen.values()]
    clashes = set() if len(set(taken)) == len(taken) else {n for n, k in collections.Counter(taken).items() if k > 1}
    judged = [rel for rel in names if not seen[rel][1] or seen[rel][0] in clashes]  # invalid, or a name clash
    fetched = cache.checked_many([rel for rel in judged if rel not in new])
    if fetched is None:
        return None
    materialized = {**fetched, **new}
    add_duplicate_findings([materialized[rel] for rel in judged if seen[rel][0] in clashes])
    invalid = [materialized[rel] for rel in judged if not materialized[rel].valid]
    token = os.urandom(16).hex()
    if not cache.store(new, {}, head=job.head, dirty=dirty(), changed=set(new), gone=cache.known - set(names),
                       token=token):
        return None
    if stamps is not None:
        cache.store_stamps(stamps[0], replace_all=stamps[1])

    def all_checked() -> list[CheckedSkill]:
        rest = cache.checked_many([rel for rel in names if rel not in materialized])
        if rest is None:  # rows damaged meanwhile: check those folders again
            rest = {c.path: c for c in check_folders([(f, r) for f, r in folders if r not in materialized], job.policy)}
        return [materialized.get(rel) or rest[rel] for rel in names]

    def git_of(rel: str) -> tuple[str, str]:
        return updates[rel] if rel in updates else state.git(rel) if rel in state else ("", "")

    # Changed since the state: the checked folders, and those whose last commit moved (their lines are re-filled).
    changed = set(new) | {rel for rel, git in updates.items() if rel not in new and rel in state and git != state.git(rel)}
    lines = {rel: skill_lines(new[rel], git_of(rel)) if rel in new else None
             for rel in changed if seen[rel][1]}  # valid before names were compared: lines worth keeping

    def remember(also: set[str]) -> None:
        entries = {rel: rendered.Rendered(*seen[rel], git_of(rel), lines.get(rel)) for rel in changed | also}
        _remember(job.root, cache.key, token, rendered.Overlay(state, names, entries), head=job.head, base=state,
                  changed=changed | also)

    remember(set())
    if invalid and not job.skip_invalid:
        return BuildResult(all_checked, invalid=invalid)
    bad = {c.path for c in invalid}
    valid = [rel for rel in names if rel not in bad]
    order = [rel for _, rel in sorted(zip([seen[rel][0] for rel in valid], valid, strict=True))]
    missing = sorted((state.undone().intersection(valid) - changed)
                     | {rel for rel in changed.intersection(valid) if lines.get(rel) is None})
    if missing:  # valid, but not rendered last time (or their commit moved): fill them from the check cache
        refetched = cache.checked_many(missing)
        if refetched is None:
            return None
        for rel, skill in refetched.items():
            lines[rel] = skill_lines(skill, git_of(rel))
        remember(set(missing))
    done = {rel: done for rel, done in lines.items() if done}
    outputs = job.outputs_spliced(order, state, done) or job.outputs_from_columns(order, state.columns(order, done))
    return BuildResult(all_checked, outputs, len(valid), invalid=invalid)


def skills_folder_in_repo(root: Path, config: RegistryConfig, top: Path | None) -> str | None:
    """The skills folder's path in the repository, when git can tell what changed in it: inside both the registry
    root and the repository, below its top (None otherwise: the build then compares file signatures)."""
    if top is None:
        return None
    skills = os.path.realpath(config.skills_dir)
    rel = os.path.relpath(skills, os.path.realpath(top))
    if rel == "." or rel.startswith("..") or os.path.relpath(skills, os.path.realpath(root)).startswith(".."):
        return None
    return Path(rel).as_posix()


STATUS_FOLDERS_LIMIT = 200  # beyond this many changed folders, one status of the whole skills folder is cheaper

Plan = tuple[list[tuple[str, str]], "set[str] | None", Callable[[], set[str]],
             "tuple[dict[str, dict[str, int]], bool] | None"]


def _plan(root: Path, config: RegistryConfig, cache: SkillCache | None, *, top: Path | None,
          skills_rel: str | None, status: gitlog.StatusScan | None, watch: dirsig.Watch | None = None) -> Plan:
    """Which folders to check, which of them changed since the cached build, and what to remember for the next one.

    Returns (folders, fresh or None, dirty folders (a function: git may still be finding them while the fresh
    folders are checked), (folder stamps by skill, replace all) or None). A folder is fresh
    when git says its tracked files changed (since the cached HEAD or in the working tree), when one of its folders'
    stamps moved (a file added, removed or renamed: `dirsig.py`), or when it was dirty last time (it holds untracked,
    ignored or modified files). With no usable cache or git, every folder is listed from disk and `fresh` is None (the
    cache then falls back to file signatures).
    """
    if cache is None or top is None or skills_rel is None:
        return collect(root, config), None, set, None
    top_str = str(top)
    racy = dirsig.scan_start(str(root / CACHE_DIR))
    known = cache.known
    table = cache.stamps
    owners = set(table.skills) if table is not None else set()
    if not (table is not None and cache.head and known and owners == known | {""}):
        return _full_plan(root, config, top, skills_rel, racy)  # not every skill (and the layout) has stamps
    moved = watch.result() if watch is not None else dirsig.moved(top_str, table)
    changes = gitlog.changed_since(top, cache.head, skills_rel, status=status)
    if changes is None:
        return _full_plan(root, config, top, skills_rel, racy)
    changed, tracked_dirty = changes
    fresh = {owner for path in changed if (owner := gitlog.owner_folder(path, known))} | (cache.dirty & known)
    layout_changed = False
    for owner in table.owners(moved):
        if owner:
            fresh.add(owner)
        else:
            layout_changed = True  # a folder outside every skill: skills may have come or gone
    if any(not is_skill_folder(f"{top_str}/{rel}") for rel in fresh):
        layout_changed = True  # a skill lost its SKILL.md (and skill.yaml)
    if layout_changed:
        folders = collect(root, config)
        names = {rel for _, rel in folders}
    else:
        ordered = sorted(known)
        folders, names = list(zip(map(f"{top_str}/".__add__, ordered), ordered, strict=True)), known
    fresh = (fresh & names) | (names - known)
    stamps = {rel: dirsig.skill_dirs(top_str, rel, racy) for rel in fresh}  # before the check reads them
    stamps.update({rel: {} for rel in known - names})
    if layout_changed:
        stamps[""] = dirsig.layout_dirs(top_str, skills_rel, names, racy)
    # Which changed folders hold files git does not track (re-checked on every build while they do): git reads its
    # index (~50 ms at 20,000 skills) while the build checks them.
    scan = gitlog.StatusScan(top, sorted(fresh) if len(fresh) <= STATUS_FOLDERS_LIMIT else skills_rel) if fresh else None

    def dirty() -> set[str]:
        loose = scan.dirty_paths() if scan is not None else set()
        found = {owner for path in tracked_dirty | (loose or set()) if (owner := gitlog.owner_folder(path, names))}
        return found if loose is not None else found | fresh  # git failed: every changed folder counts as dirty

    return folders, fresh, functools.cache(dirty), (stamps, False)


def _full_plan(root: Path, config: RegistryConfig, top: Path, skills_rel: str, racy: int) -> Plan:
    """Every folder from disk (the cache compares file signatures), with every folder stamp and, from one full
    `git status`, the folders that hold untracked, ignored or modified files."""
    status = gitlog.StatusScan(top, skills_rel)
    try:
        folders = collect(root, config)
        names = {rel for _, rel in folders}
        top_str = str(top)
        stamps = {rel: dirsig.skill_dirs(top_str, rel, racy) for rel in names}
        stamps[""] = dirsig.layout_dirs(top_str, skills_rel, names, racy)
    finally:
        paths = status.dirty_paths()
    if paths is None:
        return folders, None, set, None
    dirty = {owner for path in paths if (owner := gitlog.owner_folder(path, names))}
    return folders, None, lambda: dirty, (stamps, True)


AGENTS_MD_HEADER = ("# Agent instructions\n\nThis repository is a Skillyard skill registry. The list below is generated "
                    "by `skillyard build`; edit text outside the markers only.\n\n")


def skill_lines(skill: CheckedSkill, git: tuple[str, str]) -> tuple[str, str, str, str]:
    """A skill's finished lines in registry.json, index.json, marketplace.json and AGENTS.md."""
    commit, updated = git
    return (fill_line(skill.line, commit, updated), fill_line(skill.lines["index"], commit, updated),
            fill_line(skill.lines["plugin"], commit, updated) if skill.lines["plugin"] else "", skill.lines["agents"])


def outputs_from_lines(header: dict, ordered: list[tuple[str, str, tuple[str, str, str, str]]], *,
                       agents_md: str | None = None) -> dict[str, str]:
    """Every generated file, by repo-relative path, from finished lines (`skill_lines`): (name, path, lines) per
    skill, in (name, path) order. `agents_md` is the current AGENTS.md, whose marked block is replaced (the rest is
    the maintainers' text)."""
    return outputs_from_columns(header, [path for _, path, _ in ordered],
                                [[lines[column] for _, _, lines in ordered] for column in range(4)], agents_md=agents_md)


def outputs_from_columns(header: dict, paths: list[str], columns: list[list[str]], *,
                         agents_md: str | None = None) -> dict[str, str]:
    """`outputs_from_lines` with the lines as four columns (registry.json, index.json, marketplace.json, AGENTS.md),
    each in the skills' (name, path) order, as the spliced build gathers them."""
    from skillyard.registry import compat

    if "" in columns[2]:  # an empty line would make marketplace.json invalid JSON: refuse rather than publish it
        raise SkillyardError(f"{paths[columns[2].index('')]}: this skill folder cannot be listed in "
                             ".claude-plugin/marketplace.json (a plugin `source` must be a plain path inside the "
                             "repository)", "Move the skill folder under the repository's skills folder and build again.")
    block = compat.agents_md_block_from_lines(columns[3])
    agents = compat.replace_agents_block(agents_md, block, new_file_header=AGENTS_MD_HEADER)
    index_header = {"schema_version": SCHEMA_VERSION, "name": header["name"]}
    return {
        "registry.json": dumps_prepared(header, {"skills": ("[", columns[0])}),
        "index.json": dumps_prepared(index_header, {"skills": ("{", columns[1])}),
        ".claude-plugin/marketplace.json": dumps_prepared(compat.marketplace_header(header), {"plugins": ("[", columns[2])}),
        "AGENTS.md": agents,
    }


def _output_paths(root: Path, outputs: dict[str, str], registry_out: Path | None) -> list[tuple[str, Path]]:
    """Where each output goes. With `registry_out`, only registry.json and index.json (beside it) are written: the
    compatibility files belong to the repository root."""
    if registry_out is None:
        return [(rel, root / rel) for rel in outputs]
    return [("registry.json", registry_out), ("index.json", registry_out.with_name("index.json"))]


def write_outputs(root: Path, outputs: Mapping[str, str], *, registry_out: Path | None = None) -> list[Path]:
    """Write every output atomically; `registry_out` overrides where registry.json goes (index.json beside it).
    Spliced outputs (`splice.Outputs`) are written from the pieces they are held as."""
    from skillyard.registry.splice import Outputs, write_pieces_atomic

    written = []
    for rel, path in _output_paths(root, outputs, registry_out):
        if isinstance(outputs, Outputs):
            write_pieces_atomic(path, outputs.pieces(rel))
        else:
            write_atomic(path, outputs[rel])
        written.append(path)
    return written


def stale_outputs(root: Path, outputs: dict[str, str], *, registry_out: Path | None = None) -> list[str]:
    """The outputs whose committed text differs from a fresh build."""
    stale = []
    for rel, path in _output_paths(root, outputs, registry_out):
        text = outputs[rel]
        try:
            current = path.read_text(encoding="utf-8")
        except OSError:
            current = None
        if current != text:
            stale.append(str(path))
    return stale
