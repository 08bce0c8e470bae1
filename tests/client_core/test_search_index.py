"""The search index (SQLite FTS5): ranking by where the words are, priorities, typos, CJK, hostile queries, and a
damaged index file rebuilt."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.client.search import build_index, query_index
from skillyard.errors import SkillyardError


def skill(name: str, description: str = "", tags: tuple[str, ...] = (), version: str = "1.0.0") -> dict:
    return {"name": name, "description": description, "tags": list(tags), "version": version}


ROWS = [
    ("main", 100, skill("pdf-tools", "Merge and split documents.", ("documents",))),
    ("main", 100, skill("invoice-processor", "Extract totals from invoices; 处理发票.", ("finance", "pdf"))),
    ("main", 100, skill("report-writer", "Writes reports, exports to pdf.", ("writing",))),
    ("main", 100, skill("kubernetes-deploy", "Roll out services to a cluster.", ("k8s", "cloud"))),
    ("team", 200, skill("report-writer", "Our own report writer.", ("writing",), "2.0.0")),
    ("team", 200, skill("zeta-pdf", "Team's pdf stamping.", ("stamp",))),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("ix") / "index.sqlite"
    build_index(path, ROWS)
    connection = sqlite3.connect(path)
    yield connection
    connection.close()


def names(hits) -> list[str]:
    return [f"{h.name}@{h.source}" for h in hits]


def test_name_outranks_tags_outrank_description_then_priority_then_name(db):
    assert names(query_index(db, "pdf")) == [
        "zeta-pdf@team",  # in the name, higher-priority source
        "pdf-tools@main",  # in the name
        "invoice-processor@main",  # in the tags
        "report-writer@main",  # in the description only
    ]
    scores = [h.score for h in query_index(db, "pdf")]
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[-1]


def test_an_exact_name_comes_first_and_shadowed_names_are_marked(db):
    hits = query_index(db, "report-writer")
    assert names(hits) == ["report-writer@team", "report-writer@main"]
    assert [h.shadowed for h in hits] == [False, True] and hits[0].version == "2.0.0"
    assert names(query_index(db, "kubernetes-deploy"))[0] == "kubernetes-deploy@main"


def test_prefixes_typos_cjk_and_all_words(db):
    assert names(query_index(db, "kube"))[0] == "kubernetes-deploy@main"
    assert names(query_index(db, "kubernets"))[0] == "kubernetes-deploy@main"  # one letter missing
    assert names(query_index(db, "invoise"))[0] == "invoice-processor@main"
    assert names(query_index(db, "发票")) == ["invoice-processor@main"]
    assert names(query_index(db, "merge documents")) == ["pdf-tools@main"]  # every word must match…
    assert names(query_index(db, "merge zzzzzz")) == ["pdf-tools@main"]  # …unless none matches all
    assert query_index(db, "qqqqqq") == []
    assert names(query_index(db, "pdf", source="main"))[0] == "pdf-tools@main"
    assert len(query_index(db, "pdf", limit=2)) == 2


def test_tags_come_back_as_a_list(db):
    [hit] = query_index(db, "kubernetes-deploy", limit=1)
    assert hit.tags == ["k8s", "cloud"] and hit.description == "Roll out services to a cluster."


FTS_SYNTAX = st.lists(st.sampled_from(['"', "*", "^", ":", "{", "}", "(", ")", "+", "-", ".", " ", "NEAR", "NEAR/2",
                                        "AND", "OR", "NOT", "name", "pdf", "发", "\x00", "\\", "'"]),
                      max_size=20).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(FTS_SYNTAX, st.text(max_size=40)))
def test_no_query_text_reaches_fts5_as_syntax(db, text):
    """Whatever a user types is only ever words to look for: never an FTS5 syntax error or a traceback."""
    try:
        hits = query_index(db, text)
    except SkillyardError as exc:
        assert exc.exit_code == 2  # nothing to search for
    else:
        assert len(hits) <= 20


def test_a_damaged_index_is_rebuilt(published, skill_cli):
    from skillyard.client.config import load_config

    assert skill_cli("source", "add", published.url, "--name", "acme").code == 0
    assert skill_cli("search", "invoice", "--json").code == 0
    [index] = list((load_config().cache_dir / "search").glob("*.sqlite"))
    index.write_bytes(b"this is not a database" * 100)
    result = skill_cli("search", "invoice", "--json")
    assert result.code == 0, result.err
    assert '"invoice-processor"' in result.out
    assert sqlite3.connect(index).execute("SELECT count(*) FROM skills").fetchone()[0] > 0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.text(alphabet=st.sampled_from("处理发票数据分析翻译文档の会議"), min_size=1, max_size=6),
                          st.text(min_size=1, max_size=12)), min_size=1, max_size=5).map(" ".join))
def test_every_word_of_a_description_finds_it(tmp_path_factory, description):
    """Our query parser and FTS5's tokenizer agree: each word a user could copy from a description finds it."""
    from skillyard.client.search import query_words

    path = tmp_path_factory.mktemp("prop") / "index.sqlite"
    build_index(path, [("main", 100, skill("target", description)), ("main", 100, skill("other", "unrelated"))])
    connection = sqlite3.connect(path)
    try:
        try:
            words = query_words(description)
        except SkillyardError:
            return  # no word in it
        for word in words:
            assert "target" in [h.name for h in query_index(connection, word)], (word, description)
    finally:
        connection.close()


ASCII_TEXT = st.text(alphabet=st.characters(max_codepoint=127), max_size=60)


@settings(max_examples=300, deadline=None)
@given(ASCII_TEXT)
def test_ascii_text_given_to_fts5_as_is_yields_our_words(text):
    """ASCII text reaches FTS5 untouched (no Python pass over most of a registry): its `ascii` tokenizer must then
    index exactly the words our own parser makes of it."""
    from skillyard.client.search import _fts_text, _indexed

    assert _fts_text(text) == text
    db = sqlite3.connect(":memory:")
    try:
        db.executescript("CREATE VIRTUAL TABLE raw USING fts5(t, tokenize='ascii', content='');"
                         "CREATE VIRTUAL TABLE ours USING fts5(t, tokenize='ascii', content='');"
                         "CREATE VIRTUAL TABLE raw_v USING fts5vocab(raw, row);"
                         "CREATE VIRTUAL TABLE ours_v USING fts5vocab(ours, row);")
        db.execute("INSERT INTO raw(rowid, t) VALUES (1, ?)", (text,))
        db.execute("INSERT INTO ours(rowid, t) VALUES (1, ?)", (_indexed(text),))
        raw = db.execute("SELECT term, cnt FROM raw_v ORDER BY term").fetchall()
        assert raw == db.execute("SELECT term, cnt FROM ours_v ORDER BY term").fetchall()
    finally:
        db.close()


def _reference_tokens(text: str, mode: str) -> list[str]:
    """The tokenizer as first written (one TOKEN_RE match at a time): the faster split must give the same list."""
    from skillyard.client.search import TOKEN_RE

    out: list[str] = []
    for match in TOKEN_RE.finditer(text.lower()):
        run = match.group(1)
        if run:
            out += [run[i:i + 2] for i in range(len(run) - 1)]
            if mode != "query" or len(run) == 1:
                out += list(run)
        else:
            out.append(match.group(2))
    return out


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab Z9_-.,处理发票の会議éÉ２ＡｂＣ한국\x00\x1f"), max_size=40),
       st.sampled_from(["index", "query"]))
def test_cjk_tokens_are_unchanged(text, mode):
    from skillyard.client.search import tokens

    assert tokens(text, mode) == _reference_tokens(text, mode)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.none(), st.text(alphabet="ab\x1f", max_size=4),
                 st.lists(st.one_of(st.text(alphabet="ab\x1f ", max_size=4), st.integers()), max_size=4)))
def test_tags_are_joined_as_before(tags):
    from skillyard.client.search import TAG_SEPARATOR, _tag_text

    assert _tag_text(tags) == TAG_SEPARATOR.join(str(t).replace(TAG_SEPARATOR, " ") for t in tags or [])
    if tags:
        assert _tag_text(iter(tags)) == _tag_text(tags)  # a one-pass iterator too


def test_the_cycle_collector_is_back_on_after_a_build_even_a_failed_one(tmp_path):
    import gc

    from skillyard.client.search import _collector_paused

    assert gc.isenabled()
    with pytest.raises(KeyError), _collector_paused():
        assert not gc.isenabled()
        build_index(tmp_path / "x.sqlite", [("main", 1, {"description": "no name"})])
    assert gc.isenabled()


def test_the_in_memory_index_size_changes_only_how_the_index_is_written(tmp_path, monkeypatch):
    """FTS5's `hashsize` (how much new index it keeps in memory) must not change a single answer."""
    from skillyard.client import search

    rows = ROWS + [("main", 100, skill(f"bulk-{i:03d}", f"Bulk helper {i} for pdf and 发票 number{i}", ("bulk",)))
                   for i in range(300)]
    answers = []
    for size in (search.FTS_HASH_BYTES, 1024):  # the default, and one that writes many segments
        monkeypatch.setattr(search, "FTS_HASH_BYTES", size)
        build_index(tmp_path / f"{size}.sqlite", rows)
        db = sqlite3.connect(tmp_path / f"{size}.sqlite")
        try:
            answers.append([db.execute("SELECT * FROM skills ORDER BY id").fetchall(),
                            db.execute("SELECT * FROM terms ORDER BY term").fetchall(),
                            [[h.to_dict() for h in query_index(db, q, limit=50)]
                             for q in ("pdf", "bulk", "bu", "发票", "number12", "numbr12", "helper pdf")]])
        finally:
            db.close()
    assert answers[0] == answers[1]
