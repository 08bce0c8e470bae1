"""The incremental build (`git status -uno` + folder stamps, `registry/dirsig.py`) always gives a fresh build's bytes."""

from __future__ import annotations

import os
import shutil
import sqlite3

import pytest

from skillyard.registry import dirsig
from skillyard.registry.build import build_registry
from skillyard.registry.cache import CACHE_FILE

from .conftest import git


@pytest.fixture
def warm(repo, tmp_path, monkeypatch):
    """A committed registry of three skills (one with an ignored file) whose cache knows HEAD."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    for name in ("alpha", "beta", "gamma"):
        repo.add_skill(name)
    repo.write("skills/beta/scripts/run.py", "print('beta')\n")
    repo.write(".gitignore", "*.log\n")
    repo.write("skills/gamma/notes.log", "ignored, but published\n")
    repo.commit()
    build_registry(repo.root)
    return repo


def _same_as_fresh(repo):
    cached = build_registry(repo.root)
    fresh = build_registry(repo.root, use_cache=False)
    assert [(c.path, c.valid) for c in cached.checked] == [(c.path, c.valid) for c in fresh.checked]
    assert cached.outputs == fresh.outputs
    return cached.outputs


def _edit_in_place(path, text):
    """Rewrite a file's bytes without touching its folder (no new entry, no rename)."""
    with open(path, "r+", encoding="utf-8") as handle:
        handle.truncate(0)
        handle.write(text)


CHANGES = {
    "untracked file in a subfolder": lambda r: r.write("skills/beta/scripts/extra.py", "print(1)\n"),
    "untracked subfolder": lambda r: r.write("skills/alpha/references/new/deep.md", "# Deep\n"),
    "ignored file edited in place": lambda r: _edit_in_place(r.root / "skills/gamma/notes.log", "changed\n"),
    "tracked file edited in place": lambda r: _edit_in_place(r.root / "skills/beta/scripts/run.py", "print(2)\n"),
    "file removed": lambda r: (r.root / "skills/beta/scripts/run.py").unlink(),
    "file renamed": lambda r: os.rename(r.root / "skills/beta/scripts/run.py", r.root / "skills/beta/scripts/go.py"),
    "untracked skill in a new group": lambda r: r.add_skill("delta", group="more/"),
    "skill renamed": lambda r: shutil.move(r.root / "skills/alpha", r.root / "skills/group/alpha"),
    "skill removed": lambda r: shutil.rmtree(r.root / "skills/alpha"),
    "config changed": lambda r: r.write("pyproject.toml", (r.root / "pyproject.toml").read_text().replace(
        "A registry for tests.", "Another description.")),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_incremental_equals_fresh_after_each_kind_of_change(warm, change):
    before = _same_as_fresh(warm)
    CHANGES[change](warm)
    after = _same_as_fresh(warm)
    assert after != before  # the change was seen
    assert _same_as_fresh(warm) == after  # and the next build, from the cache it stored, agrees
    warm.commit()
    assert _same_as_fresh(warm) == _same_as_fresh(warm)


def test_a_commit_that_changes_only_dates_and_ids(warm):
    before = _same_as_fresh(warm)
    git(warm.root, "commit", "-q", "--amend", "--no-edit", "--reset-author", date="2026-06-01T00:00:00+00:00")
    after = _same_as_fresh(warm)
    assert after["registry.json"] != before["registry.json"] and "2026-06-01T00:00:00Z" in after["registry.json"]


def test_an_edit_after_the_build_is_seen_even_within_one_clock_tick(warm):
    """A folder stamped at or after the scan began is stored as unknown, so it is looked at again."""
    warm.write("skills/alpha/references/a.md", "# A\n")
    _same_as_fresh(warm)
    warm.write("skills/alpha/references/b.md", "# B\n")  # possibly the same tick as the last stamp
    assert "references/b.md" in _same_as_fresh(warm)["registry.json"]


def test_racy_stamps_are_unknown(tmp_path):
    folder = tmp_path / "skill"
    (folder / "scripts").mkdir(parents=True)
    start = dirsig.scan_start(str(tmp_path / "cache"))
    stamps = dirsig.skill_dirs(str(tmp_path), "skill", start)
    assert set(stamps) == {"skill", "skill/scripts"}
    later = dirsig.skill_dirs(str(tmp_path), "skill", 0)  # a scan that began before the epoch: every stamp racy
    assert set(later.values()) == {dirsig.UNKNOWN}
    assert dirsig.changed(str(tmp_path), ["skill", "skill/scripts", "gone"], [dirsig.UNKNOWN, 5, 5]) == [0, 1, 2]
    assert dirsig.encode({"a": 1, "a/x\ny": 2}) == (["a"], [dirsig.UNKNOWN])


def test_the_stamp_table_round_trips_and_replaces_by_skill():
    table = dirsig.Table([], [], [], []).replaced({"": {"s": 1}, "s/a": {"s/a": 2, "s/a/x": 3}, "s/b": {"s/b": 4}},
                                                  replace_all=False)
    def parts(t):
        return t.skills, t.counts, t.folders, t.values

    assert parts(dirsig.Table.decode(table.encode_all())) == parts(table)
    assert table.owners([0, 1, 2, 3]) == ["", "s/a", "s/a", "s/b"] and table.owners([]) == []
    later = table.replaced({"s/a": {}, "s/c": {"s/c": 5}, "s/b": {"s/b": 6, "s/b\nz": 7}}, replace_all=False)
    assert (later.skills, later.counts, later.folders, later.values) == (
        ["", "s/b", "s/c"], [1, 1, 1], ["s", "s/b", "s/c"], [1, dirsig.UNKNOWN, 5])
    assert table.replaced({"s/c": {"s/c": 5}}, replace_all=True).skills == ["s/c"]
    assert dirsig.Table([], [], [], []).encode_all() is None and dirsig.Table.decode(None).skills == []
    assert dirsig.Table(["a\nb"], [1], ["a\nb"], [1]).encode_all() is None
    with pytest.raises(ValueError):
        dirsig.Table.concat([table, table])
    other = dirsig.Table(["t"], [2], ["t", "t/x"], [8, 9])
    assert dirsig.Table.concat([table, other]).owners([3, 4, 5]) == ["s/b", "t", "t"]
    stored = dirsig.Table.concat([dirsig.Table.decode(t.encode_all()) for t in (table, other)])  # texts, joined
    assert parts(stored) == parts(dirsig.Table.concat([table, other]))
    damaged = dirsig.Table.decode(("a", "2", "a\na/b", "1 x"))  # a stamp that is not a number: all looked at
    with pytest.raises(ValueError):
        _ = damaged.values
    assert dirsig.moved("/nonexistent", damaged) == [0, 1] == dirsig.Watch("/nonexistent", damaged).result()
    assert 0 <= dirsig.shard("skills/a") < dirsig.SHARDS
    for texts in [("a", "2", "a", "1"), ("a", "1", "a\nb", "1 2"), ("a\nb", "1", "a", "1"), ("a\na", "1 1", "a\nb", "1 2"),
                  ("a", "0", "", ""), ("a", "x", "a", "1"), ("a", "1", "a", 7)]:
        with pytest.raises(ValueError):
            dirsig.Table.decode(texts)


def _rows(column: str, value: str, where: str = "1") -> str:
    return f"UPDATE stamps SET {column} = {value} WHERE {where}"


@pytest.mark.parametrize("damage", [
    _rows("dirs", "'x'"), _rows("dirs", "NULL"), _rows("dirs", "7"), _rows("stamps", "'1 2'"), _rows("shard", "shard + 64"),
    _rows("counts", "replace(counts, '1', '0')"), "DELETE FROM stamps WHERE skills LIKE '%skills/beta%'",
    "DELETE FROM stamps", "DROP TABLE stamps", _rows("skills", "replace(skills, 'skills/beta', 'skills/nowhere')"),
    _rows("skills", "replace(skills, 'skills/beta', 'skills/alpha')"),  # one skill twice (or in the wrong row)
    _rows("skills", "substr(skills, 2)", "skills LIKE '%' || char(10)"),  # the layout ('') gone
    _rows("stamps", "'1' || substr(stamps, instr(stamps, ' '))"),  # a wrong stamp
    _rows("stamps", "replace(stamps, '1', 'x')")])  # not a number
def test_damaged_folder_stamps_mean_a_full_scan_with_the_same_bytes(warm, damage):
    fresh = build_registry(warm.root, use_cache=False).outputs
    with sqlite3.connect(warm.root / CACHE_FILE) as db:
        db.execute(damage)
    db.close()
    warm.write("skills/beta/scripts/extra.py", "print(1)\n")
    assert build_registry(warm.root).outputs == build_registry(warm.root, use_cache=False).outputs != fresh


def _forbid_full_decode(monkeypatch):
    from skillyard.registry.cache import SkillCache

    def refuse(self):
        raise AssertionError("the incremental build decoded every cached row")

    monkeypatch.setattr(SkillCache, "load_rows", refuse)


def test_one_change_splices_the_other_skills_without_decoding_the_cache(warm, monkeypatch):
    _same_as_fresh(warm)  # records the finished lines
    warm.write("skills/alpha/SKILL.md", (warm.root / "skills/alpha/SKILL.md").read_text() + "\nMore.\n")
    warm.commit(date="2026-05-01T00:00:00+00:00")
    fresh = build_registry(warm.root, use_cache=False)
    with monkeypatch.context() as patch:
        _forbid_full_decode(patch)
        spliced = build_registry(warm.root)
    assert spliced.outputs == fresh.outputs and "2026-05-01T00:00:00Z" in spliced.outputs["registry.json"]
    assert [(c.path, c.line, c.findings) for c in spliced.checked] == [(c.path, c.line, c.findings) for c in fresh.checked]


def test_invalid_and_duplicate_skills_stay_reported_when_unchanged(warm, monkeypatch):
    warm.write("skills/bad/SKILL.md", "---\nname: bad\n---\n")
    _same_as_fresh(warm)
    warm.add_skill("alpha", group="again/")  # a second `alpha`: both are now invalid
    with monkeypatch.context() as patch:
        _forbid_full_decode(patch)
        cached = build_registry(warm.root)
        skipped = build_registry(warm.root, skip_invalid=True)
    fresh = build_registry(warm.root, use_cache=False)
    assert [(c.path, c.findings) for c in cached.invalid] == [(c.path, c.findings) for c in fresh.invalid]
    assert [c.path for c in cached.invalid] == ["skills/again/alpha", "skills/alpha", "skills/bad"]
    assert skipped.outputs == build_registry(warm.root, use_cache=False, skip_invalid=True).outputs
    shutil.rmtree(warm.root / "skills/again")
    _same_as_fresh(warm)
    assert [c.path for c in build_registry(warm.root).invalid] == ["skills/bad"]


@pytest.mark.parametrize("damage", [b"garbage", b"", b'{"format": 1}\n', "truncate", "token", "head", "old head",
                                    "delta head"])
def test_a_damaged_rendered_file_means_the_same_bytes(warm, damage):
    from skillyard.registry.rendered import DELTA_FILE, STATE_FILE

    _same_as_fresh(warm)
    path = warm.root / STATE_FILE
    first = git(warm.root, "rev-list", "--max-parents=0", "HEAD")
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[:-40])
    elif damage in ("head", "old head"):  # a HEAD that would reach git as an option; a real but wrong commit
        head = git(warm.root, "rev-parse", "HEAD")
        path.write_bytes(path.read_bytes().replace(head.encode(), b"--output=x" if damage == "head" else first.encode(), 1))
    elif damage == "delta head":
        warm.write("skills/alpha/SKILL.md", (warm.root / "skills/alpha/SKILL.md").read_text() + "\nMore.\n")
        _same_as_fresh(warm)
        delta = warm.root / DELTA_FILE
        delta.write_bytes(delta.read_bytes().replace(git(warm.root, "rev-parse", "HEAD").encode(), b"-p", 1))
    elif damage == "token":
        with sqlite3.connect(warm.root / CACHE_FILE) as db:
            db.execute("UPDATE meta SET value = 'another' WHERE key = 'token'")
        db.close()
    else:
        path.write_bytes(damage)
    warm.write("skills/beta/scripts/extra.py", "print(1)\n")
    _same_as_fresh(warm)
    _same_as_fresh(warm)


@pytest.mark.parametrize("limit", [1000, 1])
def test_successive_spliced_builds_through_the_delta_file(warm, monkeypatch, limit):
    from skillyard.registry import rendered

    monkeypatch.setattr(rendered, "DELTA_LIMIT", limit)  # 1: every build rewrites the full file
    _same_as_fresh(warm)
    steps = [
        lambda: warm.write("skills/alpha/SKILL.md", (warm.root / "skills/alpha/SKILL.md").read_text() + "\nOne.\n"),
        lambda: warm.add_skill("delta"),
        lambda: shutil.rmtree(warm.root / "skills/beta"),
        lambda: warm.add_skill("beta"),
        lambda: warm.commit(date="2026-07-01T00:00:00+00:00"),
        lambda: warm.write("skills/delta/SKILL.md", "---\nname: delta\n---\n"),  # invalid
        lambda: warm.add_skill("delta"),
    ]
    for step in steps:
        step()
        with monkeypatch.context() as patch:
            _forbid_full_decode(patch)
            cached = build_registry(warm.root)
        fresh = build_registry(warm.root, use_cache=False)
        assert cached.outputs == fresh.outputs
        assert [c.path for c in cached.invalid] == [c.path for c in fresh.invalid]
    assert (warm.root / rendered.DELTA_FILE).is_file() == (limit > 1)


def _forbid_history_cache(monkeypatch):
    from skillyard.registry import build

    def refuse(*args, **kwargs):
        raise AssertionError("the spliced build read the history cache")

    monkeypatch.setattr(build, "history", refuse)


def test_the_spliced_build_asks_git_only_about_the_new_commits(warm, monkeypatch):
    """The rendered state keeps every folder's last commit at its HEAD: no history cache, and `git log` over the
    commits since (never the whole log) when HEAD moved forward."""
    from skillyard.registry import gitlog

    warm.write("skills/broken/SKILL.md", "---\nname: broken\n---\n")  # invalid: its history is kept too
    warm.commit(date="2026-03-01T00:00:00+00:00")
    build_registry(warm.root, skip_invalid=True)
    walks = []
    real = gitlog.folder_history

    def spy(root, folders, *, since=None, pathspec=None):
        walks.append(since)
        return real(root, folders, since=since, pathspec=pathspec)

    warm.write("skills/beta/SKILL.md", (warm.root / "skills/beta/SKILL.md").read_text() + "\nMore.\n")
    warm.commit(date="2026-04-01T00:00:00+00:00")
    for step in range(2):
        with monkeypatch.context() as patch:
            _forbid_history_cache(patch)
            _forbid_full_decode(patch)
            patch.setattr(gitlog, "folder_history", spy)
            cached = build_registry(warm.root, skip_invalid=True)
        assert cached.outputs == build_registry(warm.root, use_cache=False, skip_invalid=True).outputs
        if step == 0:
            assert walks == [git(warm.root, "rev-parse", "HEAD~1")]  # one walk: the commits since the recorded HEAD
            warm.add_skill("broken")  # fixed in the working tree only: its commit is still the recorded one
    assert '"updated_at":"2026-03-01T00:00:00Z"' in cached.outputs["registry.json"]
    assert walks[1:] == [] and len(cached.checked) == 4 and not cached.invalid


def test_a_folder_back_from_an_old_commit_gets_its_own_last_commit(warm):
    """A folder the state does not know may have history from before the recorded HEAD: it is looked up in full."""
    warm.add_skill("delta")
    old = warm.commit(date="2026-02-01T00:00:00+00:00")
    _same_as_fresh(warm)
    shutil.rmtree(warm.root / "skills/delta")
    warm.commit(date="2026-03-01T00:00:00+00:00")
    _same_as_fresh(warm)
    git(warm.root, "checkout", "-q", old, "--", "skills/delta")  # back in the tree (staged), last commit the removal
    after = _same_as_fresh(warm)
    assert "skills/delta" in after["registry.json"]


def test_the_folder_watch_in_a_child_gives_what_changed_gives(tmp_path, monkeypatch):
    """The stats run in a forked child; a child that fails, or no fork at all, means the same answer inline."""
    for rel in ("a", "a/x", "b"):
        (tmp_path / rel).mkdir()
    folders = ["a", "a/x", "b", "gone"]
    now = [os.lstat(tmp_path / rel).st_ctime_ns for rel in folders[:3]]
    stamps = [now[0], now[1] - 1, now[2], 5]
    expected = dirsig.changed(str(tmp_path), folders, stamps)
    table, same = dirsig.Table(["s"], [4], folders, stamps), dirsig.Table(["s"], [3], folders[:3], now)
    assert expected == [1, 3] and dirsig.changed(str(tmp_path), folders[:3], now) == []
    assert dirsig.Watch(str(tmp_path), table).result() == expected
    assert dirsig.Watch(str(tmp_path), same).result() == []
    parent, real = os.getpid(), dirsig.changed

    def failing_in_child(*args):
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return real(*args)

    with monkeypatch.context() as patch:
        patch.setattr(dirsig, "changed", failing_in_child)
        assert dirsig.Watch(str(tmp_path), table).result() == expected
    with monkeypatch.context() as patch:
        patch.setattr(os, "fork", lambda: (_ for _ in ()).throw(OSError("no fork")))
        assert dirsig.Watch(str(tmp_path), table).result() == expected
    unused = dirsig.Watch(str(tmp_path), table)
    child = unused._pid
    unused.close()  # the child is stopped and reaped
    with pytest.raises(ChildProcessError):
        os.waitpid(child, os.WNOHANG)


def _state_from_lines(header: list, lines: list[str], token: str, head: str):
    """A rendered state from its lines as text (four blocks of one line per skill, in header order)."""
    from array import array

    from skillyard.registry import rendered

    n = len(header)
    encoded = [[line.encode("utf-8") for line in lines[c * n:(c + 1) * n]] for c in range(rendered.OUTPUTS)]
    return rendered.State(header, [sep.join(col) for sep, col in zip(rendered.SEPARATORS, encoded, strict=True)],
                          [array("q", map(len, col)) for col in encoded], token, head)


def test_the_rendered_state_answers_in_bulk_what_it_answers_one_by_one():
    from skillyard.registry import rendered

    header = [["s/a", "a", True, "c1", "d1", True], ["s/b", "b", False, "c2", "d2", False],
              ["s/c", "c", True, "c3", "d3", True]]
    lines = [f"{rel}-{column}" for column in range(4) for rel in ("a", "b", "c")]
    state = _state_from_lines(header, lines, "token", "")
    state.over = {"s/d": rendered.Rendered("d", True, ("c4", "d4"), ("d-0", "d-1", "d-2", "d-3")),
                  "s/b": rendered.Rendered("b", True, ("c5", "d5"), None)}
    state.gone = {"s/c"}
    assert state.paths() == {"s/a", "s/b", "s/d"} and "s/c" not in state and "s/d" in state
    assert state.seen() == {"s/a": ("a", True), "s/b": ("b", True), "s/d": ("d", True)}
    assert state.undone() == {"s/b"} and state.git("s/b") == ("c5", "d5") and state.git("s/a") == ("c1", "d1")
    assert state["s/a"] == rendered.Rendered("a", True, ("c1", "d1"), ("a-0", "a-1", "a-2", "a-3"))
    fresh = {"s/b": ("B0", "B1", "B2", "B3"), "s/e": ("E0", "E1", "E2", "E3")}
    order = ["s/e", "s/a", "s/d", "s/b"]
    expected = [[(fresh.get(rel) or state[rel].lines)[column] for rel in order] for column in range(4)]
    assert state.columns(order, fresh) == expected
    assert state.columns(["s/a"], {}) == [["a-0"], ["a-1"], ["a-2"], ["a-3"]] and state.columns([], {}) == [[]] * 4
    empty = _state_from_lines([], [], "token", "")
    assert empty.columns(["s/e"], fresh) == [["E0"], ["E1"], ["E2"], ["E3"]] and empty.seen() == {}


def test_a_failed_status_of_the_changed_folders_counts_them_dirty(warm, monkeypatch):
    """git's look for untracked files in the changed folders runs while they are checked; if it fails, those folders
    are taken as dirty (checked again next time), and the outputs are a fresh build's."""
    from skillyard.registry import gitlog
    from skillyard.registry.cache import SkillCache

    _same_as_fresh(warm)
    real = gitlog.StatusScan.dirty_paths

    def failing_for_folders(self):
        paths = real(self)
        return None if "literal" in " ".join(self.process.args) else paths

    warm.write("skills/alpha/references/new.md", "# New\n")  # untracked: only that status would have said so
    with monkeypatch.context() as patch:
        patch.setattr(gitlog.StatusScan, "dirty_paths", failing_for_folders)
        cached = build_registry(warm.root)
    assert cached.outputs == build_registry(warm.root, use_cache=False).outputs
    from skillyard.registry.config import load_registry_config

    assert "skills/alpha" in SkillCache(warm.root, load_registry_config(warm.root).policy(None), lazy=True).dirty
    assert _same_as_fresh(warm) == cached.outputs


def _state_for_pieces():
    from skillyard.registry import rendered

    header = [[f"s/{x}", x, x != "c", f"c-{x}", f"d-{x}", x != "c"] for x in "abcdef"]
    lines = [f"{x}-{column}-é" if x != "c" else "" for column in range(4) for x in "abcdef"]
    state = _state_from_lines(header, lines, "token", "")
    state.over = {"s/g": rendered.Rendered("g", True, ("c4", "d4"), ("g-0", "g-1", "g-2", "g-3")),
                  "s/e": rendered.Rendered("e", True, ("c5", "d5"), ("E-0", "E-1", "E-2", "E-3"))}
    state.gone = {"s/f"}
    return state


@pytest.mark.parametrize("order", [["s/a", "s/b", "s/d", "s/e"], ["s/g", "s/a", "s/b"], ["s/d", "s/b", "s/a"],
                                   ["s/a", "s/x", "s/b", "s/d"], ["s/b"], ["s/e", "s/g"]])
def test_the_state_pieces_are_its_columns_as_bytes(order):
    """Runs of recorded lines are copied as slices; joined, the pieces are the text columns with their separators."""
    from skillyard.registry import rendered

    state = _state_for_pieces()
    fresh = {"s/x": ("X0", "X1", "X2", "X3"), "s/b": ("B0", "B1", "B2", "B3")} if "s/x" in order else {}
    pieces = state.pieces(order, fresh)
    for column, text in enumerate(state.columns(order, fresh)):
        joined = rendered.SEPARATORS[column].decode().join(text).encode()
        assert b"".join(pieces[column]) == joined
    if order == ["s/a", "s/b", "s/d", "s/e"]:  # a, b: one run; d; e from the delta
        assert len(pieces[0]) == 5


@pytest.mark.parametrize("order", [["s/a", "s/c"], ["s/f"], ["s/z"]])
def test_the_state_pieces_refuse_skills_without_lines(order):
    with pytest.raises((KeyError, ValueError)):
        _state_for_pieces().pieces(order, {})


def test_the_state_pieces_refuse_a_cut_without_its_separator():
    state = _state_for_pieces()
    block = bytearray(state._blocks[0])
    block[block.index(b",\n    b-0")] = ord(";")
    state._blocks[0] = bytes(block)
    with pytest.raises(ValueError):
        state.pieces(["s/b", "s/d"], {})  # the cut before b
    with pytest.raises(ValueError):
        state.pieces(["s/a", "s/d"], {})  # the cut after a
    assert b"".join(state.pieces(["s/d"], {})[0]) == "d-0-é".encode()


@pytest.mark.parametrize("agents", [None, "", "# Mine\n\nText.\n", "# Mine\n\n<!-- skillyard:skills:begin -->\nold\n"
                                    "<!-- skillyard:skills:end -->\nAfter.\n"])
def test_spliced_outputs_are_the_text_outputs(agents):
    from skillyard.registry import build, compile, splice

    state = _state_for_pieces()
    order = ["s/a", "s/b", "s/d", "s/e", "s/g"]
    header = compile.registry_header(name="n", description="d", homepage=None,
                                     repository={"url": "https://example.org/r"})
    text = build.outputs_from_columns(header, order, state.columns(order, {}), agents_md=agents)
    spliced = splice.spliced_outputs(header, state.pieces(order, {}), agents_md=agents,
                                     agents_header=build.AGENTS_MD_HEADER)
    assert dict(spliced) == text and spliced == text
    assert {rel: b"".join(spliced.pieces(rel)) for rel in spliced} == {rel: t.encode() for rel, t in text.items()}


def test_spliced_outputs_refuse_what_the_text_outputs_refuse():
    from skillyard.errors import SkillyardError
    from skillyard.registry import build, compile, splice

    state = _state_for_pieces()
    header = compile.registry_header(name="n", description="d", homepage=None, repository={"url": "u"})
    bad = "<!-- skillyard:skills:begin -->\n<!-- skillyard:skills:begin -->\n"
    with pytest.raises(SkillyardError) as text_error:
        build.outputs_from_columns(header, ["s/a"], state.columns(["s/a"], {}), agents_md=bad)
    with pytest.raises(SkillyardError) as spliced_error:
        splice.spliced_outputs(header, state.pieces(["s/a"], {}), agents_md=bad, agents_header="")
    assert str(spliced_error.value) == str(text_error.value)
    with pytest.raises(ValueError):  # an empty marketplace line: the caller's text path raises the error
        state.pieces(["s/a"], {"s/a": ("a", "b", "", "d")})


def test_pieces_are_written_whole_through_short_writes_or_not_at_all(tmp_path, monkeypatch):
    from skillyard.registry import splice

    target = tmp_path / "out.json"
    target.write_bytes(b"old")
    real = os.writev
    monkeypatch.setattr(os, "writev", lambda fd, views: real(fd, [bytes(views[0])[:3]]))  # 3 bytes a call
    pieces = [b"ab", memoryview(b"xcdefgh")[1:], b"", b"ij" * 700]
    splice.write_pieces_atomic(target, pieces * 600)
    assert target.read_bytes() == b"".join(pieces) * 600
    monkeypatch.setattr(os, "writev", lambda fd, views: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        splice.write_pieces_atomic(target, [b"new"])
    assert target.read_bytes() == b"".join(pieces) * 600 and os.listdir(tmp_path) == ["out.json"]


def _damage_lengths(data: bytes, change) -> bytes:
    """The rendered file with its registry.json line lengths passed through `change` (a list of ints)."""
    from array import array

    end = data.index(b"\n") + 1
    count = len(__import__("json").loads(data[:end])["skills"])
    numbers = array("q", data[end:end + 8 * count])
    numbers = array("q", change(list(numbers)))
    return data[:end] + numbers.tobytes() + data[end + 8 * count:]


@pytest.mark.parametrize("damage", ["shifted lengths", "negative length", "longer", "extra byte", "no separator",
                                    "lengths cut"])
def test_a_damaged_byte_layout_means_the_same_bytes(warm, damage):
    from skillyard.registry.rendered import STATE_FILE

    _same_as_fresh(warm)
    path = warm.root / STATE_FILE
    data = path.read_bytes()
    if damage == "shifted lengths":  # the same sum: the cut around beta lands inside a line
        data = _damage_lengths(data, lambda n: [n[0] + 2, n[1] - 2, *n[2:]])
    elif damage == "negative length":
        data = _damage_lengths(data, lambda n: [n[0] + n[1] + 1, -1, *n[2:]])
    elif damage == "longer":
        data = _damage_lengths(data, lambda n: [n[0] + 1, *n[1:]])
    elif damage == "extra byte":
        data += b"x"
    elif damage == "no separator":
        at = data.rindex(b",\n    ")
        data = data[:at] + b";" + data[at + 1:]
    else:
        data = data[:data.index(b"\n") + 12]
    path.write_bytes(data)
    warm.write("skills/beta/SKILL.md", (warm.root / "skills/beta/SKILL.md").read_text() + "\nMore.\n")
    _same_as_fresh(warm)
    _same_as_fresh(warm)
