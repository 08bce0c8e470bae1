"""The pin's date (`upstream.committed_at`): read from the API's commit object, checked in source.yaml, and the
version a versionless pointer gets from it (issue 32 item 4)."""

from __future__ import annotations

import datetime

from hypothesis import given
from hypothesis import strategies as st

from skillyard.format.pointer import dump_pointer, parse_pointer
from skillyard.registry.external import utc_date

POINTER = {
    "schema_version": 1, "name": "alpha", "license": "MIT",
    "upstream": {"host": "github", "repository": "up/skills", "path": "skills/alpha", "commit": "a" * 40,
                 "tracks": "main", "committed_at": "2026-08-20T04:32:05Z"},
    "skill": {"name": "alpha", "description": "Does alpha things."},
    "files": [{"path": "SKILL.md", "size": 10, "sha256": "b" * 64}],
}
ZONES = st.integers(-14 * 60, 14 * 60).map(lambda m: datetime.timezone(datetime.timedelta(minutes=m)))


@given(st.datetimes(min_value=datetime.datetime(1971, 1, 1), max_value=datetime.datetime(9998, 12, 31),
                    timezones=ZONES))
def test_any_dated_iso_time_becomes_the_same_moment_in_utc(moment):
    moment = moment.replace(microsecond=0)
    text = utc_date(moment.isoformat())
    assert text == moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert utc_date(moment.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")) == text


@given(st.one_of(st.text(max_size=60), st.integers(), st.none(), st.lists(st.text(max_size=3), max_size=2)))
def test_anything_else_is_none_or_a_utc_time(value):
    text = utc_date(value)
    assert text is None or datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")


def test_a_time_without_a_zone_is_not_guessed():
    assert utc_date("2026-08-20T12:32:05") is None
    assert utc_date("0001-01-01T00:00:00+14:00") is None and utc_date("9999-12-31T23:59:59-14:00") is None
    assert utc_date("2026-08-20T12:32:05+08:00") == "2026-08-20T04:32:05Z"  # GitHub's own form is ...Z


def test_the_version_is_the_declared_one_else_the_pins_date_else_none():
    pointer, problems = parse_pointer(dump_pointer(POINTER))
    assert problems == [] and pointer.version == "0.0.20260820043205"
    declared = {**POINTER, "skill": {**POINTER["skill"], "version": "2.1.0"}}
    assert parse_pointer(dump_pointer(declared))[0].version == "2.1.0"
    undated = {**POINTER, "upstream": {k: v for k, v in POINTER["upstream"].items() if k != "committed_at"}}
    assert parse_pointer(dump_pointer(undated))[0].version is None  # the build dates it from the registry


def test_a_malformed_date_is_refused_naming_the_field():
    bad = {**POINTER, "upstream": {**POINTER["upstream"], "committed_at": "2026-08-20 04:32:05"}}
    pointer, problems = parse_pointer(dump_pointer(bad))
    assert pointer is None
    assert [p.field for p in problems] == ["upstream.committed_at"] and problems[0].line is not None
