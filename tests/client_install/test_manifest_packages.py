"""skill.yaml-only packages (design 000's manifest, `system_prompt` as the body) install into something every
target can load: the client writes the SKILL.md `skillyard migrate` writes (the same function), renders inputs
into it, locks it with its hash, and keeps skill.yaml beside it. Design 000 milestone M1 is the github: case."""

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
import yaml

from .conftest import run_mcp_server, tree

# The design document's invoice-processor manifest: the same fields, structure and values (our own wording).
MANIFEST = """\
schema_version: "1.0"

name: invoice-processor
version: 1.2.0
description: "Processes invoices: OCR, structured extraction, filing into a knowledge base"
tags: [finance, document, ocr]
author: sga
license: MIT
homepage: https://github.com/sga/invoice-processor

system_prompt: |
  You process invoices that the user hands you as images or PDFs.
  1. Read the document with OCR.
  2. Extract the amount, date, supplier and tax number.
  3. File the record in the knowledge base collection {{inputs.target_collection}}.
  4. Reply with a short summary and ask the user to confirm it.

  Confirm key facts before acting; amounts above {{inputs.confirm_threshold}} need a second confirmation.

capabilities:
  - read-file
  - http-request

mcp_deps:
  - tool: ocr.recognize
    required: true
    description: "Text recognition for invoice images and PDFs"
  - tool: sga_rag.upload
    required: true
    description: "Store structured records in the knowledge base"
  - tool: sga_rag.search
    required: false
    description: "Find duplicates before filing"
  - tool: doc.excel_create
    required: false
    description: "Export a spreadsheet summary of a batch"

inputs:
  - name: target_collection
    type: string
    description: "Knowledge base collection the invoices go to"
    required: false
    default: invoices
  - name: confirm_threshold
    type: number
    description: "Amount above which a second confirmation is needed"
    required: false
    default: 10000
  - name: output_language
    type: enum
    enum: [zh-CN, en-US]
    description: "Language of the replies"
    required: false
    default: zh-CN
"""
NAME = "invoice-processor"
STANDARD_KEYS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
HUB_TOOLS = ["ocr.recognize", "sga_rag.upload", "sga_rag.search"]  # doc.excel_create (optional) is missing


@pytest.fixture(scope="module")
def sga_hub(tmp_path_factory):
    """A real MCP server offering the manifest's required tools and one optional one."""
    yield from run_mcp_server(tmp_path_factory, HUB_TOOLS)


def write_package(folder: Path, manifest: str = MANIFEST, extra: dict | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "skill.yaml").write_text(manifest, encoding="utf-8")
    for rel, text in (extra or {}).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return folder


def frontmatter_of(text: str) -> tuple[dict, str]:
    assert text.startswith("---\n")
    head, _, body = text[4:].partition("\n---\n")
    return yaml.safe_load(head), body


def check_installed(folder: Path, *, collection: str = "invoices") -> None:
    """SKILL.md (spec-pure frontmatter, inputs rendered) + the untouched skill.yaml, each locked with its hash."""
    from skillyard.format.manifest import manifest_to_skill_md

    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    meta, body = frontmatter_of(text)
    assert set(meta) <= STANDARD_KEYS, set(meta) - STANDARD_KEYS
    assert meta["name"] == NAME and meta["description"].startswith("Processes invoices")
    assert f"collection {collection}." in body and "above 10000 need" in body and "{{" not in text
    manifest = yaml.safe_load(MANIFEST)
    expected = manifest_to_skill_md(manifest).replace("{{inputs.target_collection}}", collection) \
        .replace("{{inputs.confirm_threshold}}", "10000")
    assert text == expected  # what `skillyard migrate` writes, inputs rendered
    assert (folder / "skill.yaml").read_text(encoding="utf-8") == MANIFEST
    from skills_ref import read_properties, validate  # the standard's reference validator, as a client would

    assert validate(folder) == [] and read_properties(folder).name == NAME
    lock = json.loads((folder / "skill.lock.json").read_text())
    assert {f["path"]: f["sha256"] for f in lock["files"]} == {
        rel: hashlib.sha256((folder / rel).read_bytes()).hexdigest() for rel in ("SKILL.md", "skill.yaml")}
    assert lock["resolved_inputs"] == {"target_collection": collection, "confirm_threshold": 10000,
                                       "output_language": "zh-CN"}


def npx_skills_scan(root: Path) -> set[str]:
    """What `npx skills`-style discovery does: a folder holding SKILL.md under .agents/skills or .claude/skills."""
    found = set()
    for base in (root / ".agents" / "skills", root / ".claude" / "skills"):
        for entry in base.iterdir() if base.is_dir() else []:
            if not entry.name.startswith(".") and (entry / "SKILL.md").is_file():
                found.add(f"{base.parent.name}/{entry.name}")
    return found


def check_runtime_finds_it(skill_cli, root: Path) -> None:
    """`skill prompt` lists it and `skill read` returns it from each folder it was placed in."""
    roots = [arg for sub in (".agents", ".claude") for arg in ("--root", str(root / sub / "skills"))]
    listed = skill_cli("prompt", "--format", "json", "--no-cache", *roots)
    assert listed.code == 0, listed.err
    assert NAME in listed.out
    read = skill_cli("read", NAME, "SKILL.md", *roots)
    assert read.code == 0, read.err
    assert "collection invoices." in read.out


def test_folder_install_user_scope_writes_a_loadable_skill_md(tmp_path, sga_hub, configure, skill_cli, user_home):
    configure("mcp_hub.endpoint", sga_hub)
    source = write_package(tmp_path / "src" / NAME)
    before = tree(source)
    result = skill_cli("install", str(source), "--target", "claude-code", "--target", "agents", "--json")
    assert result.code == 0, result.err
    outcome = json.loads(result.out)["skills"][0]
    assert outcome["version"] == "1.2.0" and {f["path"] for f in outcome["files"]} == {"SKILL.md", "skill.yaml"}
    folder = user_home / ".agents" / "skills" / NAME
    check_installed(folder)
    assert tree(source) == before  # the author's folder is never written to
    claude = user_home / ".claude" / "skills" / NAME
    assert (claude / "SKILL.md").read_bytes() == (folder / "SKILL.md").read_bytes()  # Claude Code loads this
    assert npx_skills_scan(user_home) == {f".agents/{NAME}", f".claude/{NAME}"}
    check_runtime_finds_it(skill_cli, user_home)

    # Integrity is verifiable: a local edit of the generated file is detected, not silently overwritten.
    (folder / "SKILL.md").write_text("tampered\n", encoding="utf-8")
    again = skill_cli("install", str(source), "--target", "agents")
    assert again.code != 0 and "SKILL.md" in again.err and "local edits" in again.err
    assert (folder / "SKILL.md").read_text() == "tampered\n"
    listed = skill_cli("list", "--json")
    assert listed.code == 0, listed.err
    assert [s["edited"] for s in json.loads(listed.out)["skills"] if s["name"] == NAME] == [["SKILL.md"]]
    forced = skill_cli("install", str(source), "--target", "agents", "--force")
    assert forced.code == 0, forced.err
    check_installed(folder)

    # An input value given at install time is rendered into the generated SKILL.md.
    changed = skill_cli("update", NAME, "--input", "target_collection=bills")
    assert changed.code == 0, changed.err
    check_installed(folder, collection="bills")

    gone = skill_cli("uninstall", NAME)
    assert gone.code == 0, gone.err
    assert not folder.exists() and not os.path.lexists(claude)
    assert npx_skills_scan(user_home) == set()


def test_milestone_m1_github_skill_yaml_only_project_scope(git_server, sga_hub, configure, skill_cli, tmp_path):
    """design 000 M1: `skill install github:sga/invoice-processor` fetches it and passes the MCP dependency check."""
    sha = git_server.create_repo("sga", NAME, {"skill.yaml": MANIFEST})
    configure("mcp_hub.endpoint", sga_hub)
    project = tmp_path / "proj"
    project.mkdir()
    result = skill_cli("install", f"github:sga/{NAME}", "--project-dir", str(project),
                       "--target", "claude-code", "--target", "agents", "--json")
    assert result.code == 0, result.err
    outcome = json.loads(result.out)["skills"][0]
    assert outcome["deps"]["checked"] and outcome["deps"]["missing_required"] == []
    assert outcome["deps"]["missing_optional"] == ["doc.excel_create"]
    folder = project / ".agents" / "skills" / NAME
    check_installed(folder)
    deps = skill_cli("check-deps", "--project-dir", str(project), "--json")  # reads mcp_deps from skill.yaml
    assert deps.code == 0, deps.err
    assert {d["tool"]: d["available"] for d in json.loads(deps.out)["skills"][0]["deps"]} == {
        "ocr.recognize": True, "sga_rag.upload": True, "sga_rag.search": True, "doc.excel_create": False}
    assert npx_skills_scan(project) == {f".agents/{NAME}", f".claude/{NAME}"}
    check_runtime_finds_it(skill_cli, project)
    project_lock = json.loads((project / "skills.lock.json").read_text())["skills"][NAME]
    assert project_lock["resolved_source"]["commit"] == sha
    assert "SKILL.md" in {f["path"] for f in project_lock["files"]}

    # Restore from the project lock rebuilds the same bytes (the generated file included) and verifies them.
    before = tree(folder)
    shutil.rmtree(project / ".agents")
    restored = skill_cli("install", "--project-dir", str(project))
    assert restored.code == 0, restored.err
    assert tree(folder) == before

    # Update follows the repository: a new system_prompt becomes a new generated SKILL.md.
    git_server.commit("sga", NAME, {"skill.yaml": MANIFEST.replace("version: 1.2.0", "version: 1.3.0")
                                    .replace("short summary", "brief summary")})
    updated = skill_cli("update", NAME, "--project-dir", str(project))
    assert updated.code == 0, updated.err
    text = (folder / "SKILL.md").read_text()
    assert "brief summary" in text and "short summary" not in text
    lock = json.loads((folder / "skill.lock.json").read_text())
    assert lock["version"] == "1.3.0"
    assert {f["path"]: f["sha256"] for f in lock["files"]}["SKILL.md"] == hashlib.sha256(text.encode()).hexdigest()

    gone = skill_cli("uninstall", NAME, "--project-dir", str(project))
    assert gone.code == 0, gone.err
    assert not folder.exists() and npx_skills_scan(project) == set()
    assert NAME not in json.loads((project / "skills.lock.json").read_text())["skills"]


def test_github_user_scope_without_a_hub(git_server, skill_cli, user_home):
    git_server.create_repo("sga", "erp-skills", {f"{NAME}/skill.yaml": MANIFEST, "other/README.md": "x\n"})
    result = skill_cli("install", f"github:sga/erp-skills/{NAME}", "--target", "claude-code", "--target", "agents",
                       "--skip-deps-check")
    assert result.code == 0, result.err
    check_installed(user_home / ".agents" / "skills" / NAME)
    assert npx_skills_scan(user_home) == {f".agents/{NAME}", f".claude/{NAME}"}
    check_runtime_finds_it(skill_cli, user_home)


def test_a_package_with_its_own_skill_md_gets_nothing_generated(tmp_path, skill_cli, user_home):
    from tests.support.registry import skill_md

    own = skill_md(NAME, "Processes invoices with the author's own instructions.", "# Own body\n")
    source = write_package(tmp_path / NAME, "schema_version: \"1.0\"\nversion: 1.2.0\n", {"SKILL.md": own})
    result = skill_cli("install", str(source), "--target", "agents")
    assert result.code == 0, result.err
    assert (user_home / ".agents" / "skills" / NAME / "SKILL.md").read_text() == own


# ---------------------------------------------------------------------------------------------- hostile


def nothing_installed(home: Path) -> None:
    skills = home / ".agents" / "skills"
    assert not (skills / NAME).exists() and not os.path.lexists(home / ".claude" / "skills" / NAME)
    assert [e.name for e in skills.iterdir() if not e.name.startswith(".skill-cli")] == [] if skills.is_dir() else True


@pytest.mark.parametrize(("clash", "needle"), [("Skill.md", "Skill.md"), ("skill.MD", "skill.MD"),
                                               ("sKILL.md/notes.md", "SKILL.md")])
def test_a_file_that_would_clash_with_the_generated_skill_md_refuses_the_install(tmp_path, skill_cli, user_home,
                                                                                 clash, needle):
    source = write_package(tmp_path / NAME, extra={clash: "# not the instructions\n"})
    result = skill_cli("install", str(source), "--skip-deps-check")
    assert result.code != 0 and needle in result.err and "nothing was installed" in result.err, result.err
    assert "Traceback" not in result.err
    nothing_installed(user_home)


def test_a_github_clash_with_the_generated_skill_md_is_refused(git_server, skill_cli, user_home):
    git_server.create_repo("sga", NAME, {"skill.yaml": MANIFEST, "Skill.md": "# decoy\n"})
    result = skill_cli("install", f"github:sga/{NAME}", "--skip-deps-check")
    assert result.code != 0 and "Skill.md" in result.err and "nothing was installed" in result.err
    nothing_installed(user_home)


@pytest.mark.parametrize(("manifest", "needle"), [
    ("name: [unclosed\n", "skill.yaml"),
    ("- just\n- a list\n", "skill.yaml"),
    ('schema_version: "9.0"\nname: invoice-processor\ndescription: x\n', "schema_version"),
    ("name: ../../sy-escape-probe\ndescription: Escapes.\nsystem_prompt: hi\n", "name"),
    *[(f"name: {NAME}\ndescription: Processes invoices.\n{prompt}", "system_prompt")
      for prompt in ("system_prompt: {a: 1}\n", "system_prompt: [x, y]\n", "system_prompt: 12\n",
                     "system_prompt:\n", "system_prompt: '  '\n", "")],
])
@pytest.mark.parametrize("via", ["folder", "github"])
def test_a_broken_or_hostile_manifest_installs_nothing(tmp_path, git_server, skill_cli, user_home, manifest, needle,
                                                       via):
    if via == "folder":
        ref = str(write_package(tmp_path / NAME, manifest))
    else:
        git_server.create_repo("sga", NAME, {"skill.yaml": manifest})
        ref = f"github:sga/{NAME}"
    result = skill_cli("install", ref, "--skip-deps-check")
    assert result.code != 0 and needle in result.err, result.err
    assert "Traceback" not in result.err
    nothing_installed(user_home)
    assert not (Path(tempfile.gettempdir()).parent / "sy-escape-probe").exists()  # no check folder outside tmp


def test_the_generated_skill_md_goes_through_the_journal(tmp_path, monkeypatch, skill_home):
    """A kill at any step of installing or updating a skill.yaml-only package leaves the old or the new version
    whole after recovery - the generated SKILL.md included, matching its lock (the trust work's crash rule)."""
    from tests.hostile import test_client_state as crash

    def package(version: str, word: str) -> Path:
        no_deps = MANIFEST[:MANIFEST.index("mcp_deps:")] + MANIFEST[MANIFEST.index("inputs:"):]  # no hub here
        manifest = (no_deps.replace(f"name: {NAME}", f"name: {crash.NAME}")
                    .replace("version: 1.2.0", f"version: {version}").replace("short summary", word))
        return write_package(tmp_path / "src" / version / crash.NAME, manifest)

    v1, v2 = package("1.0.0", "short summary"), package("2.0.0", "brief summary")
    for sub in ("i", "u"):
        (tmp_path / sub).mkdir()
    seen = crash.kill_everywhere(tmp_path / "i", monkeypatch, lambda p: None, lambda p: crash.do_install(p, v1),
                                 None, "1.0.0")
    assert seen == {None, "1.0.0"}
    seen = crash.kill_everywhere(tmp_path / "u", monkeypatch, lambda p: crash.do_install(p, v1),
                                 lambda p: crash.do_install(p, v2), "1.0.0", "2.0.0")
    assert seen == {"1.0.0", "2.0.0"}
    last = max((tmp_path / "u").iterdir(), key=lambda p: int(p.name[1:]))  # the run that completed
    assert "brief summary" in (last / ".agents" / "skills" / crash.NAME / "SKILL.md").read_text()


@pytest.mark.parametrize("files", [
    {"SKILL.md": "---\nname: ../../sy-escape-probe\ndescription: Escapes.\n---\nhi\n"},
    {"SKILL.md": "---\nname: /tmp/sy-escape-probe\ndescription: Escapes.\n---\nhi\n"},
    {"skill.yaml": "name: ../sy-escape-probe\ndescription: Escapes.\nsystem_prompt: hi\n"},
])
def test_a_github_skill_name_that_is_a_path_writes_nothing_anywhere(git_server, skill_cli, user_home, files):
    """The name names the private folder the download is validated in: a path there must not leave it."""
    git_server.create_repo("sga", NAME, files)
    result = skill_cli("install", f"github:sga/{NAME}", "--skip-deps-check")
    assert result.code != 0 and "not a valid skill name" in result.err, result.err
    tmp = Path(tempfile.gettempdir())
    assert not any(p.exists() for p in (tmp / "sy-escape-probe", tmp.parent / "sy-escape-probe"))
    nothing_installed(user_home)


def test_a_github_skill_md_without_a_name_takes_it_from_skill_yaml(git_server, skill_cli, user_home):
    """Lenient installs accept the name in either file (the merge rule), like a local folder."""
    git_server.create_repo("sga", NAME, {"SKILL.md": "---\ndescription: Processes invoices.\n---\n# Body\n",
                                         "skill.yaml": f"schema_version: \"1.0\"\nname: {NAME}\nversion: 2.0.0\n"})
    result = skill_cli("install", f"github:sga/{NAME}", "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["skills"][0]["version"] == "2.0.0"
    assert (user_home / ".agents" / "skills" / NAME / "SKILL.md").read_text().endswith("# Body\n")


# ---------------------------------------------------------------------------------------------- properties

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=200)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(description=_text, prompt=_text, collection=st.text("abc-_ {}:#'\"\n", max_size=20))
def test_any_manifest_installs_as_a_folder_that_validates_or_is_refused_cleanly(description, prompt, collection):
    """Whatever text a skill.yaml carries, the client either refuses it with a clear error or installs a folder
    whose generated SKILL.md and skill.yaml load together (no conflict, same name and description) and whose body
    is the prompt with the input rendered."""
    from skillyard.client import install as inst
    from skillyard.errors import SkillyardError
    from skillyard.format import Policy, load_skill

    manifest = {"schema_version": "1.0", "name": NAME, "description": description,
                "inputs": [{"name": "target_collection", "type": "string", "default": "invoices"}],
                "system_prompt": prompt + "\nfile into {{inputs.target_collection}}\n"}
    with tempfile.TemporaryDirectory() as tmp:
        source = write_package(Path(tmp) / "src" / NAME, yaml.safe_dump(manifest, allow_unicode=True))
        try:
            candidate = inst.from_local(source)
        except SkillyardError as exc:
            assert exc.message and "Traceback" not in exc.message
            return
        files = inst.render_files(candidate.files, {"target_collection": collection})
        assert {f.path for f in files} == {"SKILL.md", "skill.yaml"}
        out = Path(tmp) / "out" / NAME
        out.mkdir(parents=True)
        from skillyard.client import store

        store.write_tree(out, files)
        package = load_skill(out, Policy(strict=False))
        assert [f for f in package.errors if f.rule == "manifest-conflict"] == []
        assert package.name == NAME and package.data["description"] == description
        text = (out / "SKILL.md").read_text(encoding="utf-8")
        assert f"file into {collection}".rstrip("\n") in text


def test_folder_install_project_scope_and_restore(tmp_path, sga_hub, configure, skill_cli, monkeypatch):
    configure("mcp_hub.endpoint", sga_hub)
    project = tmp_path / "proj"
    source = write_package(project / "vendor" / NAME)
    monkeypatch.chdir(project)
    result = skill_cli("install", f"./vendor/{NAME}", "--project", "--target", "claude-code", "--target", "agents")
    assert result.code == 0, result.err
    folder = project / ".agents" / "skills" / NAME
    check_installed(folder)
    assert npx_skills_scan(project) == {f".agents/{NAME}", f".claude/{NAME}"}
    check_runtime_finds_it(skill_cli, project)
    entry = json.loads((project / "skills.lock.json").read_text())["skills"][NAME]
    assert {f["path"] for f in entry["files"]} == {"SKILL.md", "skill.yaml"}
    before = tree(folder)
    shutil.rmtree(project / ".agents")
    restored = skill_cli("install", "--project")
    assert restored.code == 0, restored.err
    assert tree(folder) == before
    # The author changes the manifest under the lock: restore refuses rather than install something else.
    (source / "skill.yaml").write_text(MANIFEST.replace("short summary", "other summary"), encoding="utf-8")
    shutil.rmtree(project / ".agents")
    moved = skill_cli("install", "--project")
    assert moved.code != 0 and "nothing was installed" in moved.err, moved.err
    assert not (folder / "SKILL.md").exists()


def test_the_installed_skill_md_is_what_skillyard_migrate_writes(tmp_path, skill_cli, user_home):
    """One function, two callers: `skillyard migrate` on the author's folder and the client at install time write
    the same SKILL.md (the client then renders the inputs into it)."""
    from skillyard.cli.main import skillyard_main

    source = write_package(tmp_path / "src" / NAME)
    migrated = write_package(tmp_path / "migrated" / NAME)
    assert skillyard_main(["migrate", str(migrated), "--no-backup"]) == 0
    result = skill_cli("install", str(source), "--target", "agents", "--skip-deps-check",
                       "--input", "confirm_threshold=500")
    assert result.code == 0, result.err
    installed = (user_home / ".agents" / "skills" / NAME / "SKILL.md").read_text(encoding="utf-8")
    expected = (migrated / "SKILL.md").read_text(encoding="utf-8") \
        .replace("{{inputs.target_collection}}", "invoices").replace("{{inputs.confirm_threshold}}", "500")
    assert installed == expected
