"""The pure parts and the store: inputs, lockfile checks, atomic swaps, the file lock, archive reading."""

import json
import multiprocessing
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillyard.client import inputs, lockfile, store
from skillyard.client.github import GitHubRef, find_skill_folder, parse_ref
from skillyard.client.mcp import parse_tool_list
from skillyard.client.store import StagedFile
from skillyard.errors import SkillyardError

DECLS = [{"name": "n", "type": "number"}, {"name": "b", "type": "boolean", "default": False},
         {"name": "e", "type": "enum", "enum": ["a", 1, True]}, {"name": "j", "type": "json"},
         {"name": "s", "type": "string", "required": True}]


def test_input_precedence_and_coercion():
    values = inputs.resolve(DECLS, cli={"n": "2.5", "s": "cli", "e": "1", "j": '{"k": [1]}'},
                            configured={"s": "config", "b": True}, skill="x")
    assert values == {"n": 2.5, "b": True, "e": 1, "j": {"k": [1]}, "s": "cli"}
    assert inputs.resolve(DECLS, cli={"s": "v", "n": "7", "b": "no", "e": "true"}, skill="x")["n"] == 7
    assert inputs.resolve(DECLS, cli={"s": "v", "e": "true"}, skill="x")["e"] is True


@pytest.mark.parametrize(("cli", "needle"), [
    ({"s": "v", "n": "abc"}, "number"), ({"s": "v", "b": "maybe"}, "true or false"),
    ({"s": "v", "e": "z"}, "one of a, 1, true"), ({"s": "v", "j": "{bad"}, "JSON"), ({"n": "1"}, "required"),
    ({"s": "v", "nope": "1"}, "no input named nope"), ({"s": "v", "n": "nan"}, "finite"),
])
def test_input_errors_name_the_input(cli, needle):
    with pytest.raises(SkillyardError) as info:
        inputs.resolve(DECLS, cli=cli, skill="x")
    assert needle in info.value.message


def test_config_values_are_type_checked():
    with pytest.raises(SkillyardError, match="config"):
        inputs.resolve(DECLS, configured={"s": "v", "b": "yes please"}, skill="x")


NAMES = ["a", "b_2", "team"]
PLAIN = st.text(alphabet=st.characters(blacklist_characters="{}"), max_size=10)
VALUE = st.one_of(st.text(max_size=8), st.integers(), st.booleans())


@given(st.lists(st.one_of(PLAIN.map(lambda t: ("text", t)), st.sampled_from(NAMES).map(lambda n: ("input", n))),
                max_size=8),
       st.fixed_dictionaries({n: VALUE for n in NAMES}))
def test_render_substitutes_each_placeholder_once(parts, values):
    template = "".join(v if kind == "text" else "{{inputs." + v + "}}" for kind, v in parts)
    expected = "".join(v if kind == "text" else inputs._spell(values[v]) for kind, v in parts)
    assert inputs.render(template, values) == expected
    assert inputs.render(template, {}) == template


def test_render_formats_values():
    out = inputs.render("{{inputs.a}} {{ inputs.b }} {{inputs.c}} {{inputs.missing}}", {"a": "x", "b": True, "c": 3})
    assert out == "x true 3 {{inputs.missing}}"


def test_parse_assignments():
    assert inputs.parse_assignments(["a=1", "b=x=y", "c="]) == {"a": "1", "b": "x=y", "c": ""}
    with pytest.raises(SkillyardError):
        inputs.parse_assignments(["novalue"])


def _lock(**over):
    doc = lockfile.skill_lock_document(skill="demo", version="1.0.0",
                                       resolved_source={"type": "registry", "source": "acme",
                                                        "url": "https://user:pw@example.com/registry.json",
                                                        "integrity": "sha256-" + "a" * 64},
                                       resolved_inputs={}, targets=[], files=[])
    doc.update(over)
    return doc


def test_lockfiles_are_validated_and_atomic(tmp_path):
    lockfile.write_skill_lock(tmp_path, _lock())
    assert lockfile.read_skill_lock(tmp_path)["resolved_source"]["url"] == "https://example.com/registry.json"
    (tmp_path / "skill.lock.json").write_text(json.dumps(_lock(version=3)))
    with pytest.raises(SkillyardError, match="skill.lock.json.*version"):
        lockfile.read_skill_lock(tmp_path)
    with pytest.raises(SkillyardError):
        lockfile.write_skill_lock(tmp_path, _lock(skill="Not Valid"))
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_project_lock_is_sorted_and_stable(tmp_path):
    entry = lockfile.project_entry(_lock())
    lockfile.update_project_lock(tmp_path, "zeta", entry)
    lockfile.update_project_lock(tmp_path, "alpha", entry)
    first = (tmp_path / "skills.lock.json").read_text()
    assert list(json.loads(first)["skills"]) == ["alpha", "zeta"]
    lockfile.update_project_lock(tmp_path, "alpha", entry)
    assert (tmp_path / "skills.lock.json").read_text() == first
    lockfile.update_project_lock(tmp_path, "zeta", None)
    assert list(json.loads((tmp_path / "skills.lock.json").read_text())["skills"]) == ["alpha"]


def test_failed_install_leaves_previous_version(tmp_path, monkeypatch):
    dest = tmp_path / ".agents" / "skills" / "demo"
    store.install_tree(dest, [StagedFile("SKILL.md", b"v1"), StagedFile("a/b.txt", b"old")])
    real_write = store.write_tree

    def explode(folder, files, **kwargs):
        real_write(folder, files[:1])
        raise OSError("disk full")

    monkeypatch.setattr(store, "write_tree", explode)
    with pytest.raises(OSError):
        store.install_tree(dest, [StagedFile("SKILL.md", b"v2"), StagedFile("c.txt", b"new")])
    assert (dest / "SKILL.md").read_bytes() == b"v1" and (dest / "a" / "b.txt").read_bytes() == b"old"
    assert sorted(p.name for p in dest.parent.iterdir()) == ["demo"]


def test_interrupted_swap_puts_the_old_folder_back(tmp_path, monkeypatch):
    import os

    dest = tmp_path / "skills" / "demo"
    store.install_tree(dest, [StagedFile("SKILL.md", b"v1")])
    real_rename = os.rename
    calls = []

    def flaky(src, dst):
        calls.append((str(src), str(dst)))
        if str(dst) == str(dest) and ".staging-" in str(src):
            raise KeyboardInterrupt
        return real_rename(src, dst)

    monkeypatch.setattr(store.os, "rename", flaky)
    with pytest.raises(KeyboardInterrupt):
        store.install_tree(dest, [StagedFile("SKILL.md", b"v2")])
    assert (dest / "SKILL.md").read_bytes() == b"v1"
    assert sorted(p.name for p in dest.parent.iterdir()) == ["demo"]


def test_paths_that_escape_are_refused(tmp_path):
    for bad in ("../x", "/etc/passwd", "a/../../b", "", "a//b", "C:/x", "a\\b"):
        with pytest.raises(SkillyardError):
            store.install_tree(tmp_path / "demo", [StagedFile(bad, b"x")])
    assert not (tmp_path / "demo").exists()


def test_edited_files_lists_changed_removed_and_added(tmp_path):
    files = [StagedFile("SKILL.md", b"x"), StagedFile("a.txt", b"a"), StagedFile("b.txt", b"b")]
    store.install_tree(tmp_path / "d", files)
    (tmp_path / "d" / "a.txt").write_bytes(b"changed")
    (tmp_path / "d" / "b.txt").unlink()
    (tmp_path / "d" / "new.txt").write_bytes(b"n")
    assert store.edited_files(tmp_path / "d", [f.entry() for f in files]) == ["a.txt", "b.txt", "new.txt"]


def _hold_lock(root, started, seconds):
    with store.store_lock(root):
        started.set()
        time.sleep(seconds)


def test_store_lock_serialises_processes(tmp_path):
    started = multiprocessing.Event()
    child = multiprocessing.Process(target=_hold_lock, args=(tmp_path, started, 0.6))
    child.start()
    assert started.wait(10)
    begin = time.monotonic()
    with store.store_lock(tmp_path):
        waited = time.monotonic() - begin
    child.join(10)
    assert waited >= 0.3


def test_github_ref_parsing():
    assert parse_ref("github:acme/skills/a/b@v1") == GitHubRef("acme", "skills", "a/b", "v1")
    assert parse_ref("github:acme/repo") == GitHubRef("acme", "repo", "", "HEAD")
    for bad in ("github:acme", "github:acme/../x", "github:acme/r/../../x", "github:/r"):
        with pytest.raises(SkillyardError):
            parse_ref(bad)


def test_find_skill_folder():
    ref = GitHubRef("acme", "pdf")
    assert find_skill_folder(["SKILL.md", "x/SKILL.md"], ref) == ""
    assert find_skill_folder(["skills/a/SKILL.md", "skills/pdf/SKILL.md"], ref) == "skills/pdf"
    assert find_skill_folder(["deep/one/SKILL.md", "README.md"], ref) == "deep/one"
    with pytest.raises(SkillyardError, match="several"):
        find_skill_folder(["a/SKILL.md", "b/SKILL.md"], ref)


def test_tool_list_shapes():
    assert parse_tool_list(["b", "a"]) == ["a", "b"]
    assert parse_tool_list({"tools": ["a", {"name": "b", "description": "x"}]}) == ["a", "b"]
    with pytest.raises(ValueError):
        parse_tool_list({"nope": 1})


def test_evolution_notes_survive_reinstall_and_are_not_edits(tmp_path):
    dest = tmp_path / "demo"
    store.install_tree(dest, [StagedFile("SKILL.md", b"v1")])
    (dest / "evolution.json").write_text('{"entries": []}')
    store.install_tree(dest, [StagedFile("SKILL.md", b"v2")])
    assert (dest / "SKILL.md").read_bytes() == b"v2"
    assert (dest / "evolution.json").read_text() == '{"entries": []}'
    lock_files = [{"path": "SKILL.md", "size": 2, "sha256": __import__("hashlib").sha256(b"v2").hexdigest()}]
    assert store.edited_files(dest, lock_files) == []
