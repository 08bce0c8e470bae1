"""Check many skill folders fast: in parallel across cores, reusing unchanged results from the local cache
(`registry/cache.py`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from skillyard.format.findings import error
from skillyard.format.paths import POINTER_FILE, path_problem, shown
from skillyard.format.policy import Policy
from skillyard.parallel import map_chunked
from skillyard.registry.checked import CheckedSkill

TYPE_CHECKING = False  # not `typing`'s: importing typing costs ~4 ms of every validate
if TYPE_CHECKING:
    from skillyard.registry.cache import SkillCache

PARALLEL_THRESHOLD = 200


def _check_one(args: tuple[str, str, Policy, bool]) -> CheckedSkill:
    from skillyard.format.verdict import judge

    folder, rel, policy, outputs = args
    if os.path.lexists(os.path.join(folder, POINTER_FILE)):
        return _check_pointer(folder, rel, outputs)
    # The one judge (format/verdict.py); a registry's own skill's skill.yaml exceptions were reviewed with it.
    pkg = judge(folder, policy, own_reviewed=True, rel_path=rel).package
    folder_problem = _folder_path_problem(rel)
    if folder_problem:
        pkg.findings.insert(0, folder_problem)
    version = pkg.data.get("version") if isinstance(pkg.data.get("version"), str) else None
    if not outputs:  # a bare check (validate, no cache): the findings are the answer; nothing is encoded
        return CheckedSkill(rel, pkg.name, version, "", pkg.findings)
    from skillyard.registry.compile import compile_skill, entry_line, entry_summary

    entry = compile_skill(pkg)
    return CheckedSkill(rel, pkg.name, version, entry_line(entry), pkg.findings, output_lines(entry_summary(entry)))


def _check_pointer(folder: str, rel: str, outputs: bool) -> CheckedSkill:
    """A pointer folder (`format/pointer.py`): its source.yaml alone, compiled from the facts it records."""
    from skillyard.format.findings import Finding
    from skillyard.format.pointer import parse_pointer, read_pointer_file

    findings = []
    others = sorted(name for name in os.listdir(folder) if name != POINTER_FILE and not name.startswith("."))
    if others:
        findings.append(error("pointer-mixed", f"The folder holds {POINTER_FILE} and content "
                              f"({', '.join(shown(n) for n in others[:5])}): a skill folder is either a pointer to a "
                              "skill in another repository or the skill itself.",
                              f"Delete {POINTER_FILE} to publish the content here, or delete the other files to list "
                              "the upstream skill.", file=others[0]))
    text, problem = read_pointer_file(os.path.join(folder, POINTER_FILE))
    pointer = None
    if problem is not None:
        findings.append(problem)
    else:
        pointer, more = parse_pointer(text, folder_name=os.path.basename(folder.rstrip("/")))
        findings += more
    folder_problem = _folder_path_problem(rel)
    if folder_problem:
        findings.insert(0, folder_problem)
    name = pointer.name if pointer is not None else os.path.basename(folder.rstrip("/"))
    version = pointer.skill.get("version") if pointer is not None else None
    findings.sort(key=Finding.sort_key)
    if pointer is None or not outputs:  # (a cached row still holds every output line: empty ones)
        return CheckedSkill(rel, name, version, "", findings,
                            {"index": "", "plugin": "", "agents": ""} if outputs else None)
    from skillyard.registry.compile import VERSION_SLOT, entry_line, entry_summary

    entry = pointer.entry(rel)
    if entry["version"] is None:  # versionless upstream: time-based, as any versionless skill's
        entry["version"] = VERSION_SLOT
    return CheckedSkill(rel, name, version, entry_line(entry), findings, output_lines(entry_summary(entry)))


def _folder_path_problem(rel: str):
    """The skill folder's own repository path obeys the shared path rule too: it becomes the registry entry's `path`,
    the site's URL and a raw-GitHub URL, so a name with `..`, a device name or a 40-level tree is refused here
    rather than breaking a later stage for every skill. Folders given from outside the repository are not judged."""
    if rel.startswith(("/", "../")) or rel == "..":
        return None
    problem = path_problem(rel)
    if problem is None:
        return None
    return error("path-unsafe", f"The skill folder's path `{shown(rel)}` {problem}.",
                 "Move the skill to a plainly named folder directly under the skills folder.", file=".")


def output_lines(summary: dict) -> dict[str, str]:
    """The skill's encoded line in index.json (commit slot left open), marketplace.json and AGENTS.md: encoding
    them here puts the work in the parallel, cached part of the build."""
    from skillyard.errors import SkillyardError
    from skillyard.registry import compat
    from skillyard.registry.compile import compact, index_line

    try:
        plugin = compact(compat.plugin_entry(summary))
    except SkillyardError:  # a folder path no plugin may name (path-unsafe, or outside the repo): build refuses it
        plugin = ""
    return {"index": index_line(summary), "plugin": plugin, "agents": compat.agents_line(summary)}


def check_folders(folders: list[tuple[Path, str]], policy: Policy, *, cache_root: Path | None = None,
                  cache: SkillCache | None = None, fresh: set[str] | None = None, head: str | None = None,
                  dirty: set[str] | None = None, jobs: int | None = None, progress=None,
                  outputs: bool = True) -> list[CheckedSkill]:
    """Check (folder, relative path) pairs; results come back in input order.

    With a cache, a folder is reused when `fresh` (the folders git says changed) does not name it, or, without git,
    when its file signature is unchanged. `outputs=False` (validate) skips encoding each skill's output lines when no
    cache will keep them: only the findings are wanted.
    """
    if cache is None and cache_root is not None and not os.environ.get("CI"):
        from skillyard.registry.cache import SkillCache

        cache = SkillCache(cache_root, policy)
    outputs = outputs or cache is not None  # a cached row must serve a later build
    results: dict[str, CheckedSkill] = {}
    todo: list[tuple[str, str, Policy, bool]] = []
    signatures: dict[str, str] = {}
    for folder, rel in folders:
        row = cache.get(rel) if cache is not None else None
        if cache is not None and fresh is not None:
            if row is not None and rel not in fresh and (reused := cache.checked(rel)) is not None:
                results[rel] = reused
                if progress:
                    progress.advance()
                continue
        elif cache is not None:
            from skillyard.registry.cache import signature

            sig = json.dumps(signature(str(folder)))
            signatures[rel] = sig
            if row is not None and row[0] == sig and (reused := cache.checked(rel)) is not None:
                results[rel] = reused
                if progress:
                    progress.advance()
                continue
        todo.append((str(folder), rel, policy, outputs))
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    if todo:  # imported once here, before the children fork, not in each
        import skillyard.format.package  # noqa: F401
        if outputs:
            import skillyard.registry.compat  # noqa: F401
            import skillyard.registry.compile  # noqa: F401
    if workers > 1 and len(todo) >= PARALLEL_THRESHOLD:
        # Hundreds of skills: some frontmatter will need PyYAML's general path (block scalars, nested values), so
        # its loader is built once before the fork rather than imported again by every process (~15 ms of CPU each).
        from skillyard.format.yamlload import frontmatter_loader

        frontmatter_loader()
    for checked in map_chunked(_check_one, todo, workers=workers if len(todo) >= PARALLEL_THRESHOLD else 1,
                               progress=progress.advance if progress else None):
        results[checked.path] = checked
    if cache is not None and (todo or set(cache.rows) != set(results) or cache.head != head
                              or cache.dirty != (dirty or set())):
        cache.store(results, signatures, head=head, dirty=dirty or set(), changed={item[1] for item in todo})
    return [results[rel] for _, rel in folders]
