"""JSON that Python refuses for a reason other than syntax: an integer of more than 4,300 digits raises a plain
ValueError (not JSONDecodeError) since Python 3.11's int limit, and deep nesting raises RecursionError. Every
reader of a file or value from outside turns both into its clear error, never a traceback."""

from __future__ import annotations

import pytest

from skillyard.client import inputs, lockfile
from skillyard.errors import SkillyardError
from skillyard.site.builder import load_registry

HUGE = "9" * 5000
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("text", ['{"schema_version": "1.0", "skills": {"x": ' + HUGE + "}}", DEEP])
def test_a_project_lockfile_with_a_huge_integer_or_deep_nesting_is_a_clear_error(tmp_path, text):
    path = tmp_path / lockfile.PROJECT_LOCK
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SkillyardError) as info:
        lockfile.read_project_lock(tmp_path)
    assert lockfile.PROJECT_LOCK in info.value.message


@pytest.mark.parametrize("text", ['{"skills": [' + HUGE + "]}", DEEP])
def test_a_registry_given_to_the_site_build_with_a_huge_integer_or_deep_nesting_is_a_clear_error(tmp_path, text):
    path = tmp_path / "registry.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SkillyardError, match="not valid JSON"):
        load_registry(path)


@pytest.mark.parametrize("value", ['{"n": ' + HUGE + "}", DEEP])
def test_a_json_input_with_a_huge_integer_or_deep_nesting_is_a_clear_error(value):
    with pytest.raises(SkillyardError, match="not valid JSON"):
        inputs.coerce({"name": "data", "type": "json"}, value, origin="--input", skill="demo")


def test_a_committed_lock_or_marker_nested_too_deeply_reads_as_damaged_not_as_a_crash(tmp_path):
    """Project-scope skill folders and their generated markers are committed to repositories: a checkout may hold
    any bytes there. Nested past the JSON decoder's recursion limit, they read as damaged (not intact, no names)."""
    from skillyard.client import store, targets

    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / store.SKILL_LOCK).write_text('{"files": ' + DEEP + "}", encoding="utf-8")
    assert store._intact(folder) is False
    (folder / targets.GENERATED_MARKER).write_text('{"files": ' + DEEP + "}", encoding="utf-8")
    assert targets._generated_names(folder) == []
