"""Property tests for the small parsers: the search tokenizer, skill references, Retry-After, URLs, the streaming
Content-Encoding decoder and the registry-entry path check."""

import time
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.client.http import _http_error, _retry_after, check_url, header_number, safe_url
from skillyard.client.resolve import parse_ref
from skillyard.client.search import CJK_RE, query_words, tokens
from skillyard.errors import SkillyardError

cjk_text = st.text(alphabet=st.sampled_from("处理发票数据分析翻译文档の会議"), min_size=1, max_size=8)
mixed = st.lists(st.one_of(cjk_text, st.text(min_size=0, max_size=12)), max_size=6).map(" ".join)


@given(mixed)
def test_tokens_come_from_the_text(text):
    lowered = text.lower()
    for token in tokens(text, mode="index"):
        assert token and token in lowered


@given(cjk_text, cjk_text, cjk_text)
def test_any_cjk_substring_matches_by_bigrams(before, middle, after):
    indexed = set(tokens(before + middle + after, mode="index"))
    query = set(tokens(middle, mode="query"))
    assert query and query <= indexed
    assert all(CJK_RE.match(q) for q in query)


@given(st.text())
def test_query_words_never_crash(text):
    try:
        words = query_words(text)
    except SkillyardError as exc:
        assert exc.exit_code == 2
    else:
        assert words and len(words) == len(set(words))


@given(st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True), st.from_regex(r"v?[0-9]{1,2}\.[0-9]\.[0-9]", fullmatch=True))
def test_parse_ref(name, version):
    assert parse_ref(name, {"acme"}) == (name, None, None)
    assert parse_ref(f"{name}@{version}", {"acme"}) == (name, version, None)
    assert parse_ref(f"{name}@acme", {"acme"}) == (name, None, "acme")


def test_retry_after_forms():
    assert _retry_after("3") == 3.0
    assert _retry_after(None) is None and _retry_after("soon") is None
    future = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))
    assert 25 <= _retry_after(future) <= 31


@given(st.sampled_from(["https", "http", "ftp", "file"]), st.sampled_from(["example.com", "127.0.0.1", "localhost",
                                                                       "[::1]", "10.0.0.1"]), st.text(max_size=30))
def test_check_url_accepts_only_safe_urls(scheme, host, tail):
    url = f"{scheme}://{host}/{tail}"
    try:
        check_url(url)
    except SkillyardError:
        accepted = False
    else:
        accepted = True
    allowed = scheme == "https" or (scheme == "http" and host in ("127.0.0.1", "localhost", "[::1]"))
    if accepted:
        assert allowed
    elif allowed:
        # only user-info smuggled into the path part, or a space or control character (which no request line may
        # hold), can make an allowed URL fail
        assert "@" in tail or any(ord(c) <= 32 or ord(c) == 127 for c in tail)


def test_safe_url_hides_secrets():
    assert safe_url("https://user:pw@example.com:8443/a/b?token=x#f") == "https://example.com:8443/a/b"


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=4096), st.sampled_from([("gzip", 31), ("deflate", 15), ("identity", None)]),
       st.lists(st.integers(min_value=1, max_value=512), min_size=1, max_size=8), st.integers(0, 5000))
def test_streaming_decoder_matches_one_shot_and_never_passes_its_limit(data, coding, cuts, limit):
    """Any body in any chunking decodes to the original bytes when it fits, and is refused when it does not."""
    from skillyard.client.http import FetchError, _Decoder

    name, wbits = coding
    if wbits is None:
        sent = data
    else:
        packer = zlib.compressobj(6, zlib.DEFLATED, wbits)
        sent = packer.compress(data) + packer.flush()
    decoder = _Decoder("http://127.0.0.1/x", name, limit)
    out, pos, index = [], 0, 0
    try:
        while pos < len(sent):
            step = cuts[index % len(cuts)]
            out.append(decoder.feed(sent[pos:pos + step]))
            pos, index = pos + step, index + 1
        out.append(decoder.finish(len(sent)))
    except FetchError as exc:
        assert len(data) > limit and exc.kind == "too-large"
        # decompressed output stops one byte past the limit; identity bodies at most one received chunk past it
        assert decoder.size <= limit + (1 if wbits else max(cuts))
    else:
        assert len(data) <= limit and b"".join(out) == data


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="abAB._-/~gitGIT", min_size=1, max_size=12), min_size=1, max_size=6))
def test_registry_entry_paths_follow_the_shared_rule(paths):
    """An entry is refused exactly when one of its paths breaks the shared rule, is hidden, or the set collides."""
    from skillyard.client.resolve import entry_problems
    from skillyard.format.paths import is_hidden, path_problem, path_set_problems

    entry = {"name": "demo", "path": "skills/demo", "files": [{"path": p, "size": 1} for p in paths]}
    bad = (any(path_problem(p) or is_hidden(p) for p in paths) or len(set(paths)) != len(paths)
           or bool(path_set_problems(set(paths))))
    assert bool(entry_problems(entry)) == bad


@pytest.mark.parametrize("value,expected", [
    ("7", 7), (" 12 ", 12), ("0", 0), ("9" * 18, int("9" * 18)),
    ("²", None), ("١٢", None), ("1_000", None), ("+7", None), ("-1", None), ("7.5", None), ("", None), (None, None),
    ("9" * 19, None), ("0x10", None),
])
def test_header_numbers_are_ascii_digits_only(value, expected):
    assert header_number(value) == expected


def test_hostile_numeric_headers_never_crash_or_mislead():
    """Headers a server controls: `²` made int() raise, a huge reset made time.localtime overflow."""
    assert _retry_after("²") is None and _retry_after("١٢٠") is None
    error = _http_error("https://example.org/r.json", 429, {"X-RateLimit-Reset": "9" * 18, "Retry-After": "²"},
                        token=False)
    assert error.kind == "rate-limit" and "resets at" not in error.message and "retry after" not in error.message
    error = _http_error("https://example.org/r.json", 403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "²"},
                        token=True)
    assert error.kind == "rate-limit"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=25))
def test_any_header_value_gives_a_bounded_number_or_none(value):
    number = header_number(value)
    assert number is None or (0 <= number < 10 ** 18 and str(number) == value.strip().lstrip("0").rjust(1, "0"))
    _retry_after(value)  # never raises
