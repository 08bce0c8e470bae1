"""The compact search data: shape, CJK-safe clipping and its size budget."""

from __future__ import annotations

import json
import random

from hypothesis import given
from hypothesis import strategies as st

from skillyard.site import search_index
from skillyard.site.search_index import (
    DESCRIPTION_BYTES,
    KEYWORD_BYTES,
    POINTER,
    SCRIPTS,
    VERIFIED,
    body_keywords,
    build_search_data,
    clip_utf8,
    clip_words,
    dump_search_data,
    link_publisher_pages,
    search_rows,
)


@given(st.text(max_size=300), st.integers(min_value=0, max_value=400))
def test_clip_utf8_never_splits_a_character_and_respects_the_limit(text, limit):
    out = clip_utf8(text, limit)
    assert len(out.encode("utf-8")) <= limit
    assert text.startswith(out.rstrip()) or text.startswith(out)


def test_chinese_is_kept_as_utf8_not_escaped():
    data = build_search_data([{"name": "invoice-reader", "description": "提取增值税发票金额", "tags": ["ocr"]}], {})
    raw = dump_search_data(data)
    assert "发票".encode() in raw and b"\\u" not in raw
    assert search_rows(json.loads(raw))[0][:3] == ["invoice-reader", [0], "提取增值税发票金额"]


def test_body_keywords_come_from_headings_and_skip_known_words():
    body = "# PDF Tools\n\nSome text about apples.\n\n## Merging files\n### Form filling\n#### deep heading\n"
    words = body_keywords(body, known="pdf-tools pdf tools extract text")
    assert words.split() == ["merging", "files", "form", "filling"]
    assert "apples" not in words and "deep" not in words


def test_keywords_are_capped():
    body = "\n".join(f"## heading{i} topic{i} subject{i}" for i in range(50))
    assert len(body_keywords(body, "").encode()) <= KEYWORD_BYTES


def test_tags_are_shared_and_display_name_only_when_it_differs():
    skills = [{"name": "pdf-tools", "display_name": "pdf-tools", "description": "d", "tags": ["pdf", "docs"]},
              {"name": "ocr-kit", "display_name": "发票 OCR", "description": "d", "tags": ["pdf"]}]
    data = build_search_data(skills, {})
    assert data["tags"] == ["docs", "pdf"]
    assert search_rows(data)[0] == ["pdf-tools", [1, 0], "d", "", "", -1, -1, 0]
    assert search_rows(data)[1] == ["ocr-kit", [1], "d", "", "发票 OCR", -1, -1, 0]


def test_each_entry_carries_its_publisher_licence_and_badges():
    skills = [{"name": "a", "description": "d", "author": "Ada", "license": "MIT",
               "inventory": {"has_scripts": True}},
              {"name": "b", "description": "d", "license": "Apache-2.0", "verified": True,
               "source_url": "https://github.com/o/r", "source": {"repository": "o/r"}},
              {"name": "c", "description": "d", "verified": True}]  # `verified` means nothing on an own skill
    data = build_search_data(skills, {}, publisher_pages={"o-r"})
    assert data["publishers"] == [["Ada", ""], ["o/r", "o-r"]]  # only the page the site has is linked
    assert data["licenses"] == ["Apache-2.0", "MIT"]
    assert [entry[5:] for entry in search_rows(data)] == [[0, 1, SCRIPTS], [1, 0, POINTER | VERIFIED], [-1, -1, 0]]
    assert link_publisher_pages(build_search_data(skills, {}), {"author-ada"})["publishers"] == \
        [["Ada", "author-ada"], ["o/r", ""]]


def test_descriptions_are_cut_at_a_word_with_an_ellipsis():
    long = "Extracts tables from scanned invoices and receipts, " * 6
    cut = search_rows(build_search_data([{"name": "a", "description": long}], {}))[0][2]
    assert cut.endswith("…") and len(cut.encode()) <= DESCRIPTION_BYTES
    assert long.startswith(cut[:-1]) and long[len(cut) - 1] in " ,"  # the cut falls between words
    assert clip_words("short text", DESCRIPTION_BYTES) == "short text"
    chinese = clip_words("从扫描的增值税发票中提取金额" * 10, 40)  # no spaces: cut between characters
    assert chinese.endswith("…") and len(chinese.encode()) <= 40 and "\ufffd" not in chinese


@given(st.text(max_size=400), st.integers(min_value=4, max_value=300))
def test_clip_words_stays_within_the_limit_and_keeps_a_prefix(text, limit):
    out = clip_words(text, limit)
    assert len(out.encode("utf-8")) <= limit
    assert out == text or (out.endswith("…") and text.startswith(out[:-1]))


def test_budget_of_300_bytes_per_skill_on_long_realistic_entries():
    rng = random.Random(3)
    words = ["extract", "convert", "merge", "pdf", "invoice", "receipt", "table", "chart", "report", "deploy", "audit"]
    skills, bodies = [], {}
    for i in range(2000):
        description = " ".join(rng.choice(words) for _ in range(rng.randint(20, 150)))
        if i % 4 == 0:
            description += " 从扫描的增值税发票和收据中提取金额日期和销售方信息并整理成表格" * 3
        name = f"{rng.choice(words)}-{rng.choice(words)}-{i}"
        skills.append({"name": name, "description": description, "tags": rng.sample(words, 4)})
        bodies[name] = "\n".join(f"## {rng.choice(words)} section{j}" for j in range(10))
    raw = dump_search_data(build_search_data(skills, bodies))
    assert len(raw) / len(skills) <= 300
    entry = search_rows(json.loads(raw))[0]
    assert len(entry[2].encode()) <= DESCRIPTION_BYTES


def test_columns_hold_one_line_per_skill_whatever_the_text_holds():
    """A line break (or any other whitespace run) in a description, title or name-like field becomes one space: the
    browser finds skill i at line i of every column."""
    skills = [{"name": "a", "display_name": "Two\nlines", "description": "first\nsecond\r\nthird\u2028fourth",
               "tags": ["x"]},
              {"name": "b", "description": "", "tags": []},
              {"name": "c", "description": "发票\n识别", "tags": ["x", "y"]}]
    data = build_search_data(skills, {"a": "## Deep\n"})
    assert data["v"] == 3 and data["count"] == 3
    for key in ("names", "titles", "descriptions", "keywords"):
        assert data[key].count("\n") == 2, key
    assert data["names"] == "a\nb\nc" and data["skill_tags"] == [[0], [], [0, 1]] and len(data["facts"]) == 9
    assert [row[2] for row in search_rows(data)] == ["first second third fourth", "", "发票 识别"]
    assert search_rows(data)[0][4] == "Two lines"
    assert search_rows(build_search_data([], {})) == []


def test_the_document_matches_its_schema():
    """schemas/search.schema.json describes what the site's search box reads."""
    from pathlib import Path

    import jsonschema

    schema = json.loads((Path(__file__).resolve().parents[2] / "schemas" / "search.schema.json").read_text("utf-8"))
    skills = [{"name": "a", "description": "d", "author": "Ada", "license": "MIT", "tags": ["t"],
               "inventory": {"has_scripts": True}}, {"name": "b", "description": "发票"}]
    jsonschema.validate(json.loads(dump_search_data(build_search_data(skills, {"a": "## Heading words\n"}))), schema)


def test_search_texts_kept_between_builds_give_the_same_search_data(tmp_path):
    """`search_cache`: a text found in the file is the one worked out afresh; a changed body, description or tag
    misses; a damaged file or one from other code proves nothing. The search data is the same bytes throughout."""
    from skillyard.site import search_cache

    skills = [{"name": "a", "description": "Reads invoices", "tags": ["pdf"]},
              {"name": "b", "description": "合同审阅 " * 40, "tags": ["legal", "pdf"], "display_name": "Bee"}]
    bodies = {"a": "# A\n\n## Extract totals\n\n## OCR pipeline\n", "b": "## 合同 审阅 条款\n"}
    path = tmp_path / "search-text.json"
    fresh = dump_search_data(build_search_data(skills, bodies))
    first = search_cache.entry_texts(skills, bodies, path)
    assert path.is_file()
    again = search_cache.entry_texts(skills, bodies, path)
    assert first == again == {s["name"]: search_index.entry_text(s, bodies[s["name"]]) for s in skills}
    assert dump_search_data(build_search_data(skills, bodies, texts=again)) == fresh
    bodies2 = {**bodies, "a": bodies["a"] + "## Ledger reconciliation\n"}
    changed = search_cache.entry_texts(skills, bodies2, path)
    assert "ledger" in changed["a"][1] and changed["b"] == first["b"]
    path.write_text("{not json", encoding="utf-8")
    assert search_cache.entry_texts(skills, bodies, path) == first
    data = json.loads(path.read_text(encoding="utf-8"))
    data["texts"] = {key: ["stale", "stale"] for key in data["texts"]}
    data["fingerprint"] = "other code"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert search_cache.entry_texts(skills, bodies, path) == first
