"""Skill pages: each skill's SKILL.md body rendered (Markdown -> sanitised HTML) into its page, spread over worker
processes when there are many, read from the page cache when unchanged; the order and bytes never depend on the
number of workers or on the cache."""

from __future__ import annotations

import contextlib
import html
import os
from collections.abc import Callable

from skillyard.site import model, pages
from skillyard.site.markdown_render import MAX_BODY_CHARS, BodyRenderer
from skillyard.site.page_cache import CachedPage, PageCache, page_key

_worker_state: dict = {}


def _init_worker(repository: dict) -> None:
    _worker_state["registry"] = {"repository": repository}
    _worker_state["renderer"] = BodyRenderer()


def _render_skill_page(job: tuple[dict, str, bool]) -> tuple[str, str | None]:
    """One skill page and a note when its body could not be rendered: body Markdown -> sanitised HTML -> page
    template (runs in a worker process). A body the renderer refuses (say, nested deeper than MAX_NESTING) is
    shown as escaped text, so one skill never stops the build."""
    skill, body, served = job
    registry = _worker_state["registry"]
    if served:
        files, base = [f["path"] for f in skill["files"]], f"../../{model.WELL_KNOWN}/{skill['name']}/"
    else:
        files, base = {f["path"]: model.raw_url(registry, skill, f["path"]) for f in skill["files"]}, ""
    note = None
    try:
        body_html = _worker_state["renderer"].render(body, files=files, file_base=base)
    except Exception as exc:  # noqa: BLE001 (any parser failure on a stranger's text is that skill's alone)
        note = f"skill {skill['name']!r}: SKILL.md shown as plain text ({type(exc).__name__} while rendering it)"
        body_html = (f"<p><em>{html.escape(note)}.</em></p>\n"
                     f"<pre><code>{html.escape(body[:MAX_BODY_CHARS])}</code></pre>")
    try:
        return pages.render_skill(registry, skill, body_html, served=served), note
    except Exception as exc:  # noqa: BLE001 (the page shows the skill without its file list rather than failing)
        note = f"skill {skill['name']!r}: page shown without its file list ({type(exc).__name__} while rendering it)"
        return pages.render_skill(registry, {**skill, "files": []}, body_html, served=served), note


@contextlib.contextmanager
def _rendering(repository: dict, jobs: list[tuple[dict, str, bool]], workers: int):
    """Start rendering `jobs` in worker processes and yield a function that returns their results in order: the
    work inside the `with` runs while they render. Few jobs or one worker: rendered here when asked for."""
    if workers <= 1 or len(jobs) < 200:
        def results() -> list[tuple[str, str | None]]:
            _init_worker(repository)
            return [_render_skill_page(job) for job in jobs]
        yield results
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_worker,
                               initargs=(repository,))
    try:
        pending = pool.map(_render_skill_page, jobs, chunksize=max(1, len(jobs) // (workers * 8)))
        yield lambda: list(pending)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)  # a failed build does not wait for pages it will not use
        raise
    pool.shutdown()


def _render_all(repository: dict, jobs: list[tuple[dict, str, bool]], workers: int) -> list[tuple[str, str | None]]:
    with _rendering(repository, jobs, workers) as results:
        return results()


def render_skill_pages(registry: dict, bodies: dict[str, str], *, workers: int | None = None,
                       cache: PageCache | None = None, served: set[str] | None = None,
                       notes: list[str] | None = None,
                       meanwhile: Callable[[], set[str]] | None = None,
                       digests: dict[str, str] | None = None,
                       lazy: bool = False) -> tuple[list[str | CachedPage], int]:
    """Every skill page in registry order, and how many came from the cache. Rendering Markdown is the slow part,
    so misses are spread over the CPUs; results keep their order, so the output never depends on workers or cache.
    `served`: the skills whose files the site serves (default: all); the others link to their files' raw URLs.
    `meanwhile`: work run while the workers render (staging the served files), returning the skills really
    served; `served` is then a guess, and the few pages guessed wrong are rendered again, so the pages are the
    same as if rendered after it. `digests`: each skill's `page_cache.entry_digest` (keys the cache). `lazy`: a
    page the cache holds is returned as a `CachedPage`, read only if it is needed."""
    cache = cache or PageCache(None)
    digests = digests or {}
    repository = registry.get("repository", {})
    jobs = [(skill, bodies.get(skill["name"], ""), served is None or skill["name"] in served)
            for skill in registry["skills"]]
    keys = [page_key(repository, *job, digest=digests.get(job[0]["name"])) for job in jobs]

    def cached(i: int) -> str | CachedPage | None:
        if not lazy:
            return cache.get(keys[i])
        job = jobs[i]
        return CachedPage(keys[i], cache, lambda: _render_all(repository, [job], 1)[0][0]) \
            if cache.has(keys[i]) else None

    texts: list[str | CachedPage | None] = [cached(i) for i in range(len(jobs))]
    missing = [i for i, text in enumerate(texts) if text is None]
    page_notes: list[str | None] = [None] * len(jobs)
    with _rendering(repository, [jobs[i] for i in missing], workers or min(os.cpu_count() or 1, 8)) as results:
        actual = meanwhile() if meanwhile is not None else None
        rendered = results()
    for i, (text, note) in zip(missing, rendered, strict=True):
        texts[i], page_notes[i] = text, note
        if note is None:
            cache.put(keys[i], text)
    fresh = set(missing)
    for i, (skill, body, guess) in enumerate(jobs):
        if actual is not None and (skill["name"] in actual) != guess:
            jobs[i] = (skill, body, not guess)
            keys[i] = page_key(repository, *jobs[i], digest=digests.get(skill["name"]))
            texts[i], page_notes[i] = cached(i), None
            if texts[i] is None:
                fresh.add(i)
                [(texts[i], page_notes[i])] = _render_all(repository, [jobs[i]], 1)
                if page_notes[i] is None:
                    cache.put(keys[i], texts[i])
            else:
                fresh.discard(i)
    if notes is not None:
        notes.extend(note for note in page_notes if note is not None)
    cache.prune(set(keys))
    if lazy:  # every page keyed alike, held or cached (the output tree keys each page by it)
        texts = [text if not isinstance(text, str) else CachedPage(key, cache, None, text)
                 for key, text in zip(keys, texts, strict=True)]
    return [text for text in texts if text is not None], len(jobs) - len(fresh)
