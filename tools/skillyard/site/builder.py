"""Build the static site: generate Markdown pages into a work folder, run `mkdocs build`, add machine files.

    registry.json + skill folders ──► .site-build/docs/*.md (jinja2) ──► mkdocs build ──► _site/
                                                                       + search.json, registry.json, index.json,
                                                                         .well-known/agent-skills/…

Skill pages stay out of the navigation and Material's search plugin is off (both cost O(pages²) bytes or a
multi-megabyte index); our own `search.json` is a few hundred bytes per skill. mkdocs writes into the work
folder; the site's files are then put at `--out`, a real folder which `cp -a` or an upload copies as it is,
exchanged with a spare copy kept up to date in the work folder (`real_out`; only changed files rewritten). Same inputs give the same bytes: the only date mkdocs writes
(sitemap lastmod, sitemap.xml.gz mtime) comes from SOURCE_DATE_EPOCH, which we set to the newest `updated_at`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.registry.compile import index_document
from skillyard.registry.config import load_registry_config
from skillyard.site import (
    machine,
    mkdocs_env,
    model,
    output,
    overlap,
    pages,
    publish,
    real_out,
    shell,
    upstream,
)
from skillyard.site.history import read_history
from skillyard.site.page_cache import CachedPage, CheckedSkills, PageCache, entry_digest, page_text
from skillyard.site.problem_cache import all_problems
from skillyard.site.publishers import publisher_docs, publisher_pages
from skillyard.site.search_index import dump_search_data, link_publisher_pages
from skillyard.site.side_work import publishers_and_keys, search_and_sparse
from skillyard.site.skill_api import API_DIR, document_maker
from skillyard.site.skill_pages import render_skill_pages
from skillyard.site.story import with_story
from skillyard.site.titles import all_titles

SEARCH_FILE = "search.json"


@dataclass
class BuildResult:
    out: Path
    skills: int
    pages: int
    seconds: dict[str, float] = field(default_factory=dict)
    search_bytes: int = 0
    cached_pages: int = 0
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # one skill's problem the build worked around (not served, …)
    files_written: int = 0  # output files written by this build; the others were proven unchanged (`output`)
    files_kept: int = 0
    upstream: dict[str, int] = field(default_factory=dict)  # pointer skills by content state (`site.upstream`)


def default_config() -> Path:
    """The mkdocs.yml shipped inside the package, for a registry that has none of its own."""
    from importlib import resources

    return Path(str(resources.files("skillyard.site") / "defaults" / "mkdocs.yml"))


def theme_dir() -> Path:
    """The packaged theme files (`overrides/` templates, `assets/` styles and scripts). The builder adds them to
    every build, so a registry's mkdocs.yml never names them and there is one copy of them, in the package."""
    from importlib import resources

    return Path(str(resources.files("skillyard.site") / "theme"))


STYLESHEET = "assets/skillyard.css"


def add_theme(cfg) -> None:
    """Put our templates, hooks and stylesheet into a loaded mkdocs config. Our templates go after the registry's
    own `custom_dir` (a registry's override of a template wins) and before Material's; our hooks always run — they
    add each page's Content-Security-Policy — beside any hooks the registry names."""
    from skillyard.site import mkdocs_hooks

    if cfg.theme.name != "material":
        raise SkillyardError(f"theme: {cfg.theme.name!r} is not supported",
                             "Set `theme: {name: material}` in mkdocs.yml: the skill pages use Material's templates.")
    overrides = str(theme_dir() / "overrides")
    if overrides not in cfg.theme.dirs:
        cfg.theme.dirs.insert(1 if cfg.theme.custom_dir else 0, overrides)
    cfg.plugins["skillyard-site-hooks"] = mkdocs_hooks
    if STYLESHEET not in [str(item) for item in cfg.extra_css]:
        cfg.extra_css.append(STYLESHEET)


def find_config(root: Path, config: Path | None) -> Path:
    """`--config` (must exist), else `mkdocs.yml` in the repo root, else in the current folder, else the default
    shipped in the package."""
    if config:
        if config.is_file():
            return config.resolve()
        raise SkillyardError(f"--config {config}: not found", "Pass an existing mkdocs.yml, or leave --config out.")
    for candidate in (root / "mkdocs.yml", Path("mkdocs.yml")):
        if candidate.is_file():
            return candidate.resolve()
    return default_config().resolve()


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def load_registry(path: Path, checked: CheckedSkills | None = None) -> tuple[dict, bytes]:
    """registry.json, checked against its schema (only the entries `checked` does not know yet) and the rules
    pages need (names usable in URLs, unique, text encodable)."""
    from skillyard.format.schemas import check_document

    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SkillyardError(f"{path}: not found", "Run `skillyard build` first, or pass --registry PATH.") from None
    try:
        registry = json.loads(data)
    except (ValueError, RecursionError) as exc:  # bad UTF-8 or JSON, an integer past 4,300 digits, nesting
        raise SkillyardError(f"{path}: not valid JSON ({str(exc)[:200]})", "Rebuild it with `skillyard build`.") from None
    skills = registry.get("skills") if isinstance(registry, dict) else None
    if checked is not None and isinstance(skills, list):
        try:
            check_document("registry", {**registry, "skills": checked.unchecked(skills)}, what=str(path))
        except SkillyardError:  # the whole document again, so the message names the entry's real position
            check_document("registry", registry, what=str(path))
            raise
        checked.save()
    else:
        check_document("registry", registry, what=str(path))
    top = {key: value for key, value in registry.items() if key != "skills"}
    # A lone surrogate can only come from a `\uD800`-style escape (raw bytes would not have decoded): without one
    # in a UTF-8 file, no part can hold it, and dumping every entry again to find out is skipped.
    suspect = json.detect_encoding(data) != "utf-8" or _SURROGATE_ESCAPE.search(data) is not None
    for part in [top, *registry["skills"]] if suspect else []:
        try:
            json.dumps(part, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            where = f"skill {part.get('name')!r}" if part is not top else "the registry's own fields"
            raise SkillyardError(f"{path}: {where} hold a lone UTF-16 surrogate escape (such as \\ud800), not text",
                                 "Rebuild registry.json with `skillyard build` from valid UTF-8 files.") from None
    bad = model.check_names(registry)
    if bad:
        raise SkillyardError(f"{path}: skill name(s) not usable in a URL: {', '.join(map(repr, bad[:5]))}",
                             "Skill names are lowercase letters, digits and single hyphens; fix them and rebuild.")
    names = [s["name"] for s in registry["skills"]]
    if len(set(names)) != len(names):
        raise SkillyardError(f"{path}: a skill name appears twice", "Rebuild it with `skillyard build`.")
    return registry, data


def load_index(path: Path, registry: dict) -> bytes | None:
    """The index.json written next to registry.json, published as is when it agrees with registry.json; None when
    there is none (the builder then derives it)."""
    from skillyard.format.schemas import check_document

    if not path.is_file():
        return None
    data = path.read_bytes()
    try:
        index = json.loads(data)
    except (ValueError, RecursionError) as exc:  # bad UTF-8 or JSON, an integer past 4,300 digits, nesting
        raise SkillyardError(f"{path}: not valid JSON ({str(exc)[:200]})", "Rebuild it with `skillyard build`.") from None
    check_document("index", index, what=str(path))
    if index["skills"] != index_document(registry)["skills"]:
        raise SkillyardError(f"{path}: does not match registry.json next to it (stale or from another build)",
                             "Run `skillyard build` to write both files again.")
    return data


SITE_MARKERS = (".nojekyll", "search.json", ".well-known/agent-skills/index.json")


def check_out(out: Path, root: Path, work_dir: Path, config: Path) -> None:
    """Refuse an output folder whose replacement would destroy sources: the repo, its parents, the skills, the
    work or config folders, or any non-empty folder that is not a site this command built."""
    protected = [root, work_dir, config.parent]
    if any(out == p or out in p.parents for p in protected) or out.is_relative_to(work_dir):
        raise SkillyardError(f"--out {out} would overwrite the repository, its sources or the work folder",
                             "Choose a separate output folder such as _site/.")
    if out.is_dir() and any(out.iterdir()) and not all((out / marker).exists() for marker in SITE_MARKERS):
        raise SkillyardError(f"--out {out} exists and is not a site built by `skillyard site build`",
                             "Remove the folder yourself or choose another --out; it is replaced on every build.")


MAX_SKILL_MD_BYTES = 2_000_000  # when registry.json gives no size; the page shows the first 200,000 characters


def read_bodies(registry: dict, root: Path, notes: list[str] | None = None,
                folders: dict | None = None, contents: dict | None = None) -> dict[str, str]:
    """Each skill's SKILL.md body (frontmatter removed), read from its folder under `root`, never past the size
    registry.json lists. A SKILL.md that is a symlink or not a regular file gives an empty body and a note.
    `folders`: filled with each skill's folder, for `machine.stage_well_known`. `contents`: the pointer skills'
    `upstream.Content` (a pointer skill's body is its upstream SKILL.md only when this build fetched and checked it)."""
    from skillyard.format import split_frontmatter

    bodies = {}
    for skill in registry["skills"]:
        if "source_url" in skill:  # a pointer entry: the content is upstream, not under `root`
            content = (contents or {}).get(skill["name"])
            bodies[skill["name"]] = content.body if content is not None and content.state == upstream.SHOWN else ""
            continue
        machine.check_skill_path(skill)
        path = root / skill["path"] / "SKILL.md"
        if not os.path.lexists(path):
            raise SkillyardError(f"{path}: missing, but registry.json lists skill {skill['name']!r}",
                                 "Pass --root at the repository the registry was built from, or rebuild it.")
        size = next((f["size"] for f in skill.get("files", []) if f["path"] == "SKILL.md"), MAX_SKILL_MD_BYTES)
        try:
            folder = machine.known_folder(skill, root, folders)
            text = publish.read_regular(folder, "SKILL.md", min(size, MAX_SKILL_MD_BYTES)).decode("utf-8", "replace")
        except publish.UnreadableFile as exc:
            if notes is not None:
                notes.append(f"skill {skill['name']!r}: SKILL.md not shown on its page: {exc}")
            text = ""
        try:
            parts = split_frontmatter(text)
        except ValueError:
            parts = None  # validation reports an unclosed frontmatter; the page shows no body
        bodies[skill["name"]] = parts[1] if parts else ""
    return bodies


def pointer_views(registry: dict, contents: dict, digests: dict[str, str]) -> tuple[dict, dict[str, str]]:
    """The registry the skill pages are rendered from: each pointer entry with its `upstream_content` view (what
    this build could show of it), and the page-cache digests of those entries to match."""
    if not contents:
        return registry, digests
    skills, digests = [], dict(digests)
    for skill in registry["skills"]:
        content = contents.get(skill["name"]) if "source_url" in skill else None
        if content is not None:
            skill = {**skill, "upstream_content": content.view()}
            digests[skill["name"]] = entry_digest(skill)
        skills.append(skill)
    return {**registry, "skills": skills}, digests


def served_problems(skill: dict, contents: dict) -> list[str]:
    """Why the site does not serve the skill's files: `publish.skill_problems`, except that a pointer skill whose
    upstream content this build fetched and checked is judged by its files as an own skill is."""
    content = contents.get(skill["name"]) if "source_url" in skill else None
    if content is not None and content.state == upstream.SHOWN:
        return publish.file_set_problems(skill)
    return publish.skill_problems(skill)


def shown_files(contents: dict) -> dict[str, dict[str, bytes]]:
    return {name: content.files for name, content in contents.items() if content.state == upstream.SHOWN}


def source_epoch(registry: dict) -> int:
    """The newest `updated_at` as a Unix time: the build's only date, so rebuilding gives the same bytes."""
    newest = 0
    for skill in registry["skills"]:
        with contextlib.suppress(ValueError):
            stamp = datetime.fromisoformat(skill.get("updated_at", "").replace("Z", "+00:00"))
            if stamp.tzinfo is not None:
                newest = max(newest, int(stamp.timestamp()))
    return newest

def generate_docs(registry: dict, bodies: dict[str, str], site_src: Path, docs: Path,
                  cache: PageCache | None = None, served: set[str] | None = None,
                  notes: list[str] | None = None,
                  rendered: tuple[list[str | CachedPage], int] | None = None,
                  tag_cache: PageCache | None = None, home: dict | None = None, titles: dict | None = None,
                  publisher_parts: tuple[dict, dict] | None = None) -> tuple[list[tuple[str, str | CachedPage]], int, int, dict[str, str]]:
    """Write every page but the skill and tag pages into `docs` (emptied first), with the shells those are stamped
    from; returns ((skill name, page Markdown) in registry order, generated pages, skill pages from the cache,
    {docs path: Markdown} of the tag pages). `rendered`: the skill pages already rendered by
    `render_skill_pages` (else rendered here); `tag_cache`: the tag pages of the build before; `home`: the registry's
    home page settings (`RegistryConfig.home_page`); `publisher_parts`: `publisher_docs`' result, made elsewhere."""
    if docs.exists():
        shutil.rmtree(docs)
    docs.mkdir(parents=True)
    # The packaged assets first, then the registry's own (a file of the same name replaces ours).
    for folder, target in ((theme_dir() / "assets", docs / "assets"), (site_src / "pages", docs),
                           (site_src / "assets", docs / "assets")):
        if folder.is_dir():
            shutil.copytree(folder, target, dirs_exist_ok=True)
    if not (docs / "format.md").exists():  # written by the format owner; keep the nav link alive until then
        (docs / "format.md").write_text("# The skill format\n\nThis page is not written yet.\n", encoding="utf-8")

    groups = model.tag_groups(registry["skills"])
    home = home or {}
    missing = [name for name in home.get("featured", []) if name not in {s["name"] for s in registry["skills"]}]
    if missing and notes is not None:
        notes.append(f"featured skills not in registry.json, left out of the home page: {', '.join(missing)}")
    tag_pages: dict[str, str] = {}
    for group in groups:
        tag_pages.update(pages.cached_tag_pages(group, tag_cache) if tag_cache is not None
                         else pages.render_tag_pages(group))
    folder = tag_cache.folder if tag_cache is not None else None  # the publisher pages' cache sits beside it
    index, listed = publisher_parts or publisher_docs(registry, titles or all_titles(registry, bodies),
                                                      folder.with_name("publishers") if folder else None)
    tag_pages.update(listed)  # stamped from the tag pages' shells (same depth and meta)
    if tag_cache is not None:
        tag_cache.prune(tag_cache.used)
    # The home page last: it links only the publisher pages this site has.
    generated = {"index.md": pages.render_home(registry, groups, home, publisher_pages(docs, tag_pages)),
                 "tags/index.md": pages.render_tags_index(groups), **index}
    skill_pages, cached = rendered or render_skill_pages(registry, bodies, cache=cache, served=served, notes=notes)
    shells = {}  # mkdocs renders one shell per kind of page; shell.stamp_pages stamps every such page from it
    if skill_pages:
        shells[f"skills/{shell.SHELL}.md"] = shell.shell_markdown(page_text(skill_pages[0]))
    if tag_pages:
        shells.update(shell.tag_shells(next(iter(tag_pages.values()))))
    for rel, text in {**generated, **shells}.items():
        path = docs / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    pairs = [(skill["name"], text) for skill, text in zip(registry["skills"], skill_pages, strict=True)]
    return pairs, len(generated) + len(tag_pages) + len(pairs), cached, tag_pages


def run_mkdocs(config: Path, docs: Path, site_dir: Path, epoch: int, site_url: str | None,
               settings: dict | None = None, template_cache: Path | None = None) -> list[str]:
    """`mkdocs build` (never --dirty) with our docs and output folders (and `settings` over the config's);
    returns mkdocs' warnings. `template_cache`: a folder keeping the theme's compiled templates between builds."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    from skillyard.site import mkdocs_hooks

    overrides = {**(settings or {}), "docs_dir": str(docs), "site_dir": str(site_dir)}
    if site_url is not None:
        overrides["site_url"] = site_url
    collect = mkdocs_env.Collect()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(collect)
    mkdocs_hooks.TEMPLATE_CACHE["folder"] = template_cache
    try:
        with mkdocs_env.env("SOURCE_DATE_EPOCH", str(epoch)):
            cfg = load_config(config_file=str(config), **overrides)
            add_theme(cfg)
            build(cfg, dirty=False)
    except SkillyardError:
        raise
    except Exception as exc:  # mkdocs raises its own Abort/ConfigurationError types
        raise SkillyardError(f"mkdocs build failed: {exc}", f"Check {config} and the pages under {docs}.") from exc
    finally:
        logger.removeHandler(collect)
        mkdocs_hooks.TEMPLATE_CACHE["folder"] = None
    return collect.messages


def _out_path(out: Path) -> Path:
    """`out` made absolute with its parent resolved, itself not followed (it may be our symlink)."""
    out = out.absolute()
    return out.parent.resolve() / out.name if out.name not in ("", ".", "..") else out.resolve()


@overlap.fewer_collections
def build_site(registry_path: Path, root: Path, out: Path, *, config: Path | None = None,
               work_dir: Path | None = None, site_url: str | None = None, use_cache: bool = True,
               fetcher: upstream.Fetcher | None = None, static_host: bool = False) -> BuildResult:
    """Build the whole site into `out` (replaced only when the build succeeds: see `output`). `fetcher`: fetch the
    pointer skills' upstream content (`upstream`); None builds offline. `out` is a real folder holding the site and
    nothing else, never a symlink into the work folder. `static_host`: the registry.json served there points at the
    files the folder serves (`machine.served_here`)."""
    timings: dict[str, float] = {}
    start = time.perf_counter()
    root = root.resolve()
    config = find_config(root, config)
    site_src = config.parent / "site"
    work_dir = (work_dir or root / ".site-build").resolve()
    checked = CheckedSkills(work_dir / "cache" / "checked-skills.json" if use_cache else None)
    registry, registry_bytes = load_registry(registry_path, checked)
    digests = checked.digests  # every entry's, as the check keyed them: the page and staging keys reuse them
    index_bytes = load_index(registry_path.with_name("index.json"), registry)
    link = _out_path(out)
    # `--out` is always a real folder that `cp -a`, rsync or an upload copies as it is (real_out: a spare tree in the
    # work folder, exchanged atomically). The link an older build left there is replaced; a link of the user's own
    # is followed.
    out = link if not link.is_symlink() or output.is_old_tree_link(link) else link.resolve()
    check_out(out, root, work_dir, config)
    notes: list[str] = []
    folders: dict = {}
    contents = upstream.collect(registry, fetcher, notes)
    bodies = read_bodies(registry, root, notes, folders, contents)
    page_registry, digests = pointer_views(registry, contents, digests)
    titles = all_titles(registry, bodies)
    history = read_history(registry_path, work_dir / "cache" if use_cache else None)  # one git call, cached by HEAD
    page_registry, digests = with_story(page_registry, digests, titles, history)
    problems, unpackable = all_problems(registry["skills"], checked.digests, set(shown_files(contents)),
                            partial(served_problems, contents=contents),
                            work_dir / "cache" / "problems.json" if use_cache else None)
    served_registry, served_bytes, note = (registry, registry_bytes, None) if not static_host else \
        machine.served_here(registry, registry_bytes, [s["name"] for s in registry["skills"]
                                                       if problems[s["name"]] and "source_url" not in s])
    notes += [note] if note else []
    # A site built before into this work folder: only the per-skill JSON documents that changed are made (`api_plan`);
    # else the forked child makes them all while the pages are rendered.
    warm = use_cache and any((output._tree_home(work_dir, out) / name).is_file() for name in ("live.json", "spare.json"))
    tree: Path | None = None
    try:
        with contextlib.ExitStack() as stack, overlap.frozen_heap(), \
                overlap.Background(partial(publishers_and_keys, registry, titles, history, digests,
                                           work_dir / "cache" / "publishers" if use_cache else None)) as side, \
                overlap.Background(partial(search_and_sparse, registry, bodies, served_registry, titles, history,
                                           not warm, work_dir / "cache" / "search-text.json" if use_cache else None)) \
                as background:
            stack.enter_context(pages.compiled_templates(work_dir / "cache" / "templates" if use_cache else None))
            well_known = work_dir / "well-known"
            cache = PageCache(work_dir / "cache" / "pages" if use_cache else None)
            guess = {name for name, found in problems.items() if not found}  # served unless their files fail to read
            staged: list[set[str]] = []
            identities: dict = {}
            raw: dict | None = {} if machine.raw_prefix(served_registry) is not None else None
            archives: dict = {}

            def stage() -> set[str]:  # runs while the workers render the pages
                staged.append(machine.stage_well_known(registry, root, well_known, notes, reuse=use_cache,
                                                       folders=folders, known_problems=problems, identities=identities,
                                                       digests=digests, pointer_files=shown_files(contents),
                                                       raw=raw, archives=archives, known_unpackable=unpackable))
                timings["read"] = time.perf_counter() - start
                return staged[0]

            rendered = render_skill_pages(page_registry, bodies, cache=cache, served=guess, notes=notes, meanwhile=stage,
                                          digests=digests, lazy=True)
            served = staged[0]
            # A tree written whole (a first build): a forked child writes the served files and archives into it now, on
            # the core the single-threaded steps below leave free.
            tree = real_out.whole_tree(out, work_dir)
            early = None
            if tree is not None:
                early_plan = output.Plan()
                machine.plan_served_files(early_plan, served_registry, served, identities, archives)
                early = stack.enter_context(overlap.Background(partial(real_out.write_early_in_child, tree, early_plan, os.getpid())))
            mark = start + timings["read"]
            skill_pages, page_count, cached, tag_pages = generate_docs(
                registry, bodies, site_src, work_dir / "docs", cache, served, notes, rendered,
                PageCache(work_dir / "cache" / "tags") if use_cache else None, load_registry_config(root).home_page(),
                titles, (parts := side.result())[0])
            timings["generate"] = time.perf_counter() - mark
            mark = time.perf_counter()
            site = work_dir / "site"  # mkdocs' output: the hand-written, home and tag pages, the theme, the shell
            output.remove(site)
            # mkdocs runs in a forked child (the build's own process runs it again should the child fail, for the
            # real error) while this one makes what needs no page of mkdocs'.
            mkdocs_run = stack.enter_context(overlap.Background(partial(
                run_mkdocs, config, work_dir / "docs", site, source_epoch(registry), site_url,
                mkdocs_env.registry_settings(registry) if config == default_config().resolve() else None,
                work_dir / "cache" / "templates" if use_cache else None)))
            search_data, sparse, api = background.result()
            search = dump_search_data(link_publisher_pages(search_data, publisher_pages(work_dir / "docs", tag_pages)))
            index, documents = parts[1]
            make = document_maker(registry, titles, history)
            api_files = [(rel, key, partial(bytes, api[rel]) if rel in api else make(rel[len(API_DIR) + 1:-5]))
                         for rel, key in documents]
            del api
            warnings = mkdocs_run.result()
            timings["mkdocs"] = time.perf_counter() - mark
            mark = time.perf_counter()
            plan = output.Plan()
            stamped = shell.stamp_pages(site, skill_pages, tag_pages) if skill_pages or tag_pages else []
            plan.add_folder(site)
            for rel, key, make in stamped:
                plan.add_lazy(rel, key, make)
            del skill_pages, tag_pages
            timings["stamp"] = time.perf_counter() - mark
            mark = time.perf_counter()
            plan.add_bytes(SEARCH_FILE, search)
            # /api/skills/NAME.json and its index (skill_api), by the same keys whoever made the bytes.
            plan.add_bytes(f"{API_DIR}/index.json", index)
            for rel, key, make in api_files:
                plan.add_lazy(rel, key, make)
            machine.plan_machine_files(plan, served_registry, served_bytes, index_bytes, served, identities,
                                       sparse=sparse, raw=raw, archives=archives)
            timings["machine"] = time.perf_counter() - mark
            mark = time.perf_counter()
            counts = real_out.publish(out, work_dir, plan, (tree, early.result()) if tree is not None else None)
            tree = None  # publish owns it now
            timings["write"] = time.perf_counter() - mark
            timings["total"] = time.perf_counter() - start
            return BuildResult(out=out, skills=len(registry["skills"]), pages=page_count, seconds=timings,
                               search_bytes=len(search), cached_pages=cached, warnings=warnings, notes=notes,
                               files_written=counts["written"], files_kept=counts["kept"],
                               upstream=dict(sorted(Counter(c.state for c in contents.values()).items())))
    finally:
        if tree is not None:  # the build failed after making it (and the child writing there has stopped)
            output.remove(tree)
