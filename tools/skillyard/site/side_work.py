"""The parts of a site build that need only the registry, the bodies, the titles and the history, made by forked
children (`overlap.Background`) while the build's own process reads the skills and renders the pages.

Two children, so the one whose result is needed first is not held up by the other: `publishers_and_keys` (the
publisher pages, needed when the docs are generated, and the per-skill JSON keys and index) and `search_and_sparse`
(the search data, the sparse index and, on a first build, every per-skill JSON document, needed when the output is
planned). Each returns exactly what the same call gives in the build's own process (which runs it there when a
child fails), so the bytes never depend on where the work ran.
"""

from __future__ import annotations

from pathlib import Path

from skillyard.site.publishers import publisher_docs
from skillyard.site.search_cache import entry_texts
from skillyard.site.search_index import build_search_data
from skillyard.site.skill_api import api_files, api_plan


def publishers_and_keys(registry: dict, titles: dict[str, str], history: dict, digests: dict[str, str],
                        publisher_cache: Path | None) -> tuple[tuple[dict, dict], tuple[bytes, list[tuple[str, str]]]]:
    """(`publisher_docs`, (the per-skill JSON index's bytes, [(site path, `skill_api.document_key`), …]))."""
    index, plan = api_plan(registry, digests, titles, history)
    return publisher_docs(registry, titles, publisher_cache), (index, [(rel, key) for rel, key, _ in plan])


def search_and_sparse(registry: dict, bodies: dict[str, str], served: dict, titles: dict[str, str], history: dict,
                      api: bool = True, search_cache: Path | None = None) -> tuple[dict, dict[str, bytes], dict[str, bytes]]:
    """The search data, the sparse index (of the registry.json served, `served`) and the per-skill JSON.
    `search_cache`: the file keeping each skill's search text between builds (`search_cache`)."""
    from skillyard.format.sparse import sparse_files

    texts = entry_texts(registry["skills"], bodies, search_cache)
    return (build_search_data(registry["skills"], bodies, titles=titles, texts=texts), sparse_files(served),
            api_files(registry, titles, history) if api else {})
