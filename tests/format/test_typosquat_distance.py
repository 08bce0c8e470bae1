"""The typosquat check's edit distance: the banded, cut-off version the scanner runs equals the textbook
optimal-string-alignment distance (capped at limit + 1) on any pair of names."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format.scan.rules import distance, near_name
from skillyard.format.scan.skill_level import WELL_KNOWN_SKILLS

NAMES = st.text(alphabet="abcde-", max_size=12)


def _full_table(a: str, b: str) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        table[i][0] = i
    for j in range(len(b) + 1):
        table[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
    return table[-1][-1]


@settings(max_examples=3000)
@given(NAMES, NAMES, st.integers(min_value=0, max_value=3))
def test_banded_distance_equals_the_full_table(a, b, limit):
    assert distance(a, b, limit) == min(_full_table(a, b), limit + 1)


def test_near_names_of_well_known_skills():
    assert near_name("skill-creater", WELL_KNOWN_SKILLS) == "skill-creator"
    assert near_name("brainstroming", WELL_KNOWN_SKILLS) == "brainstorming"
    assert near_name("skill-creator", WELL_KNOWN_SKILLS) is None
    assert near_name("skill-00042", WELL_KNOWN_SKILLS) is None


def _near_by_table(name: str, known) -> str | None:
    """near_name without its letter-set shortcut: the distance alone decides."""
    if name in known:
        return None
    for candidate in known:
        limit = 1 if len(candidate) <= 6 else 2
        if abs(len(candidate) - len(name)) > limit + 4 or (name[:2] != candidate[:2] and name[-2:] != candidate[-2:]):
            continue
        if _full_table(name, candidate) <= limit:
            return candidate
        if name.startswith(candidate[:3]) and len(name) > len(candidate) and not name.startswith(candidate) and \
                _full_table(name[:len(candidate)], candidate) <= limit:
            return candidate
    return None


@st.composite
def _mutated_names(draw):
    name = list(draw(st.sampled_from(sorted(WELL_KNOWN_SKILLS))))
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(name)))
        op = draw(st.sampled_from(["insert", "delete", "replace", "swap"]))
        letter = draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz-0123456789"))
        if op == "insert":
            name.insert(at, letter)
        elif name and op == "delete":
            del name[min(at, len(name) - 1)]
        elif name and op == "replace":
            name[min(at, len(name) - 1)] = letter
        elif len(name) > 1:
            at = min(at, len(name) - 2)
            name[at], name[at + 1] = name[at + 1], name[at]
    return "".join(name)


@settings(max_examples=2000)
@given(_mutated_names())
def test_the_letter_set_shortcut_never_changes_the_answer(name):
    assert near_name(name, WELL_KNOWN_SKILLS) == _near_by_table(name, WELL_KNOWN_SKILLS)
