"""Hostile skill folders against validate and build: YAML bombs and depth (issue item 12), the build cache and the
AGENTS.md markers (item 16). Every test asserts the safe outcome: a finding naming the file, line and fix, nothing
built, nothing written -- and, for the bombs, bounded time and memory in a separate, resource-limited process."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.registry.conftest import PYPROJECT, Repo, git, skill_text

from skillyard.errors import SkillyardError
from skillyard.format.frontmatter import parse_skill_md
from skillyard.format.manifest import parse_manifest
from skillyard.format.yamlload import MAX_DEPTH, safe_load
from skillyard.registry import compat
from skillyard.registry.build import build_registry, write_outputs

SKILLYARD = str(Path(sys.executable).with_name("skillyard"))
BILLION_LAUGHS = "".join(
    f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9 if i else ["lol"] * 9) + "]\n" for i in range(10))
KiB = 1024


def doc(yaml_text: str, body: str = "# Body\n\nSteps.\n") -> str:
    return f"---\nname: x\n{yaml_text}---\n{body}"


# (frontmatter after `name: x`, rule, 1-based file line of the finding)
HOSTILE_FRONTMATTER = [
    pytest.param(BILLION_LAUGHS, "yaml-alias", 4, id="billion-laughs"),
    pytest.param("description: &a [*a]\n", "yaml-alias", 3, id="recursive-alias"),
    pytest.param("base: &b {description: x}\n<<: *b\n", "yaml-alias", 4, id="merge-key-alias"),
    pytest.param("description: &d text\nsummary: *d\n", "yaml-alias", 4, id="scalar-alias"),
    pytest.param("description: " + "[" * 1000 + "]" * 1000 + "\n", "yaml-depth", 3, id="1000-brackets"),
    pytest.param("description: " + "[" * 5000 + "\n", "yaml-depth", 3, id="5000-unclosed-brackets"),
    pytest.param("description: " + "{a: " * 200 + "}" * 200 + "\n", "yaml-depth", 3, id="deep-flow-mappings"),
    pytest.param("description:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 40)) + "  " * 40 + "v\n",
                 "yaml-depth", 35, id="deep-block-mappings"),
    pytest.param("? " + "[" * 40 + "]" * 40 + "\n: x\n", "yaml-depth", 3, id="deep-complex-key"),
    pytest.param("tags: [" + "a," * 12_000 + "a]\n", "yaml-too-many-nodes", 3, id="many-nodes"),
    pytest.param("description: " + "x" * (70 * KiB) + "\n", "yaml-too-large", 1, id="huge-scalar"),
    pytest.param("description: !!python/object/apply:os.system ['echo owned']\n", "yaml-tag", 3, id="python-tag"),
    pytest.param("description: !!binary aGVsbG8=\n", "yaml-tag", 3, id="binary-tag"),
    pytest.param("tags: !!set {a, b}\n", "yaml-tag", 3, id="set-tag"),
    pytest.param("updated: !!timestamp 2024-01-01\n", "yaml-tag", 3, id="timestamp-tag"),
    pytest.param("description: !custom x\n", "yaml-tag", 3, id="local-tag"),
    pytest.param("score: .nan\n", "yaml-value", 3, id="nan"),
    pytest.param("score: -.inf\n", "yaml-value", 3, id="infinity"),
    pytest.param("score: 1.0e+999\n", "yaml-value", 3, id="overflowing-float"),
    pytest.param("version: " + "9" * 5000 + "\n", "yaml-value", 3, id="5000-digit-int"),
    pytest.param("version: 99999999999999999999\n", "yaml-value", 3, id="beyond-int64"),
    pytest.param("user-invocable: !!bool maybe\n", "yaml-value", 3, id="bool-tag-on-a-word"),
    pytest.param("? !!bool x\n: y\n", "yaml-value", 3, id="bool-tag-on-a-key"),
    pytest.param("metadata: !!map x\n", "yaml-value", 3, id="map-tag-on-a-scalar"),
]


@pytest.mark.parametrize("strict", [True, False], ids=["strict", "lenient"])
@pytest.mark.parametrize(("yaml_text", "rule", "line"), HOSTILE_FRONTMATTER)
def test_hostile_frontmatter_is_an_error_finding_in_every_mode(yaml_text, rule, line, strict):
    fm = parse_skill_md(doc(yaml_text), strict=strict)
    assert not fm.ok and fm.data == {}
    finding = next(f for f in fm.findings if f.rule == rule)
    assert finding.is_error and finding.file == "SKILL.md" and finding.line == line
    assert finding.fix and finding.message


@pytest.mark.parametrize(("yaml_text", "rule", "line"), HOSTILE_FRONTMATTER)
def test_hostile_skill_yaml_is_refused_the_same_way(yaml_text, rule, line):
    if rule == "yaml-too-large":  # skill.yaml may carry the prompt: its cap is 512 KiB, not 64
        assert parse_manifest("name: x\n" + yaml_text)[0]["description"].startswith("xxx")
        yaml_text = yaml_text * 8
    data, _, findings = parse_manifest("name: x\n" + yaml_text)
    assert data is None
    [finding] = findings
    assert (finding.rule, finding.file, finding.is_error) == (rule, "skill.yaml", True)
    assert finding.line == (None if rule == "yaml-too-large" else line - 1)


def test_plain_merge_keys_and_core_tags_still_load():
    fm = parse_skill_md(doc('description: !!str 12\n<<: {license: MIT}\nversion: "1.0.0"\n'))
    assert fm.data == {"name": "x", "description": "12", "license": "MIT", "version": "1.0.0"}
    nested = "metadata:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, MAX_DEPTH - 1)) + "  " * (MAX_DEPTH - 1) + "v\n"
    assert not any(f.rule.startswith("yaml-") for f in parse_skill_md(doc(nested)).findings)


def test_other_yaml_files_use_the_bounded_loader():
    """The client's config.yaml goes through the same loader: a bomb there is a YAMLError, never an expansion."""
    import yaml

    with pytest.raises(yaml.YAMLError, match="alias"):
        safe_load(BILLION_LAUGHS)
    with pytest.raises(yaml.YAMLError, match="levels deep"):
        safe_load("a: " + "[" * 100 + "]" * 100)
    assert safe_load("sources: [{url: 'https://x.invalid/r.json'}]\n") == {"sources": [{"url": "https://x.invalid/r.json"}]}


# --- hypothesis: generated hostile frontmatter never raises and never yields non-JSON data --------------------------

pieces = st.sampled_from([
    "&a ", "*a", "&b ", "*b", "<<: ", "<<: *a", "!!python/object:os.system ", "!!binary ", "!!set ", "!x ", "!!str ",
    "!!int ", "!!float ", "!!bool ", "!!null ", "!!map ", "!!seq ", "!!merge ", "[", "]", "{", "}", ", ", ": ", "- ", "? ", "\n", "\n  ", "\n    ", "'", '"', "|\n  ", ">-\n  ",
    ".nan", ".inf", "1e5", "0x1F", "9" * 30, "~", "yes", "x", "name", "description", "发票", "#", "%", "@", "`",
])
hostile_yaml = st.one_of(
    st.lists(pieces, max_size=40).map("".join),
    st.tuples(st.integers(1, 3000), st.sampled_from(["[", "{a: ", "- ", "[[", "{"])).map(lambda t: t[1] * t[0]),
    st.tuples(st.sampled_from(["a", "x y", "'q'"]), st.integers(1, 20_000)).map(lambda t: "k: " + t[0] * t[1]),
    st.lists(st.sampled_from(["name: a\n", "name: b\n", "a: &x [1, 2]\n", "b: *x\n", "<<: {c: 1}\n", "c: 2\n"]),
             max_size=8).map("".join),
)


REFUSALS = {"yaml-syntax", "yaml-duplicate-key", "yaml-alias", "yaml-depth", "yaml-too-large", "yaml-too-many-nodes",
            "yaml-tag", "yaml-value"}


def _depth(value, level: int = 0) -> int:
    if isinstance(value, dict):
        return max([_depth(v, level + 1) for v in value.values()], default=level + 1)
    if isinstance(value, list):
        return max([_depth(v, level + 1) for v in value], default=level + 1)
    return level


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_yaml, st.booleans())
def test_generated_hostile_frontmatter_gives_findings_never_exceptions(yaml_text, strict):
    fm = parse_skill_md(f"---\n{yaml_text}\n---\nbody\n", strict=strict)
    errors = [f for f in fm.findings if f.is_error]
    assert not (errors and fm.ok)
    if any(f.rule in REFUSALS for f in errors):
        assert fm.data == {}  # a refused document is not half-used
    assert all(f.file == "SKILL.md" and f.message and f.fix for f in errors)
    json.dumps(fm.data, allow_nan=False)  # nothing a JSON registry cannot hold: no NaN, bytes, sets or dates
    assert _depth(fm.data) <= MAX_DEPTH
    if _parses_with_alias(yaml_text):  # an alias is never expanded: the document is refused
        assert not fm.ok and any(f.rule in REFUSALS for f in errors)  # (an undefined one: yaml-syntax)


def _parses_with_alias(text: str) -> bool:
    import yaml

    try:
        return any(isinstance(event, yaml.AliasEvent) for event in yaml.parse(text, Loader=yaml.CSafeLoader))
    except yaml.YAMLError:
        return False


# --- bounded time and memory, in a separate process under resource limits ------------------------------------------

CHILD = textwrap.dedent("""
    import json, resource, sys

    def status_kib(key):  # this process's own memory: getrusage's ru_maxrss keeps the forking parent's peak on Linux
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith(key + ":"))

    resource.setrlimit(resource.RLIMIT_AS, (600 * 2**20, 600 * 2**20))
    from skillyard.format.package import load_skill
    from skillyard.format.policy import Policy
    load_skill(sys.argv[1] + "/warm", Policy())  # imports and caches done: what follows is the hostile file alone
    before = resource.getrusage(resource.RUSAGE_SELF)
    rss_before = status_kib("VmRSS")
    cpu = before.ru_utime + before.ru_stime
    resource.setrlimit(resource.RLIMIT_CPU, (int(cpu) + 3, int(cpu) + 3))  # SIGXCPU past ~2 s of work
    results = {}
    for strict in (True, False):
        pkg = load_skill(sys.argv[1] + "/hostile", Policy(strict=strict))
        results[str(strict)] = sorted({f.rule for f in pkg.findings if f.is_error})
    after = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"rules": results, "extra_kib": status_kib("VmHWM") - rss_before,
                      "cpu": after.ru_utime + after.ru_stime - cpu}))
""")

MIB = 1024 * 1024


def _fill(head: str, size: int = MIB - 64) -> str:
    """A SKILL.md of about `size` bytes: `head` then a body of plain text lines."""
    text = head if head.startswith("---\n") else doc(head)
    return text + ("Plain body text, nothing special here.\n" * ((size - len(text)) // 39))


BOUNDED = [
    pytest.param(doc(BILLION_LAUGHS), "yaml-alias", id="billion-laughs"),
    pytest.param("---\nname: x\ndescription: " + "[" * (MIB - 100) + "\n---\n", "yaml-too-large", id="1MiB-brackets"),
    pytest.param(doc("description: " + "[" * 60_000 + "\n"), "yaml-depth", id="60KiB-brackets"),
    pytest.param(doc("tags: [" + "a," * 30_000 + "a]\n"), "yaml-too-many-nodes", id="60KiB-flow-list"),
    pytest.param(doc("tags:\n" + "- a\n" * 15_000), "yaml-too-many-nodes", id="60KiB-block-list"),
    pytest.param(doc("description: " + "{a: " * 15_000 + "\n"), "yaml-depth", id="60KiB-flow-mappings"),
    pytest.param(doc("description: x" + ": :" * 15_000 + " " * 15_000 + "x\n[\n"), "yaml-syntax", id="colon-repair"),
    pytest.param(doc("".join(f"k{i}: &a{i} [*a{i - 1}, *a{i - 1}]\n" if i else "k0: &a0 [x]\n" for i in range(2000))),
                 "yaml-alias", id="alias-chain"),
    pytest.param(_fill(doc("description: &a [x, x]\nb: [*a, *a]\n")), "yaml-alias", id="1MiB-with-body"),
]


@pytest.mark.parametrize(("skill_md", "rule"), BOUNDED)
def test_bombs_are_refused_within_two_seconds_and_200_mb(tmp_path, skill_md, rule):
    assert len(skill_md.encode()) <= MIB
    for name, text in (("warm", skill_text("warm")), ("hostile", skill_md)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]  # a SIGXCPU or MemoryError would end it otherwise
    report = json.loads(done.stdout)
    assert rule in report["rules"]["True"] and rule in report["rules"]["False"]
    assert report["extra_kib"] <= 200 * 1024, report
    assert report["cpu"] <= 2.0, report


@pytest.mark.parametrize("mode", ["--strict", "--lenient"])
def test_validate_json_prints_a_full_report_with_the_finding(tmp_path, mode):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    for name, yaml_text in (("bomb", BILLION_LAUGHS), ("deep", "description: " + "[" * 1000 + "]" * 1000 + "\n")):
        (tmp_path / "skills" / name).mkdir(parents=True)
        (tmp_path / "skills" / name / "SKILL.md").write_text(doc(yaml_text).replace("name: x", f"name: {name}"))
    done = subprocess.run([SKILLYARD, "validate", "--json", mode, "--no-cache"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is False and report["summary"]["invalid"] == 2
    rules = {s["name"]: {f["rule"] for f in s["findings"] if f["severity"] == "error"} for s in report["skills"]}
    assert "yaml-alias" in rules["bomb"] and "yaml-depth" in rules["deep"]
    build = subprocess.run([SKILLYARD, "build", mode, "--no-cache"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=120)
    assert build.returncode == 1 and "nothing was written" in build.stderr and "Traceback" not in build.stderr
    assert not (tmp_path / "registry.json").exists() and not (tmp_path / "AGENTS.md").exists()


# --- item 16: the cache never outlives a folder -----------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Repo:
    root = tmp_path / "registry"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))  # this user's cache secret lives here
    r = Repo(root)
    r.write("pyproject.toml", PYPROJECT)
    r.write(".gitignore", "skills/private-*/\n")
    r.add_skill("alpha")
    r.add_skill("beta")
    r.commit()
    return r


def _names(outputs: dict[str, str]) -> set[str]:
    return {s["name"] for s in json.loads(outputs["registry.json"])["skills"]}


def _mv(repo: Repo, old: str, new: str) -> None:
    shutil.move(repo.root / old, repo.root / new)
    text = (repo.root / new / "SKILL.md").read_text()
    (repo.root / new / "SKILL.md").write_text(text.replace(f"name: {Path(old).name}", f"name: {Path(new).name}"))


CHANGES = {
    "deleted-untracked": (lambda r: r.add_skill("gamma"), lambda r: shutil.rmtree(r.root / "skills/gamma"), "gamma"),
    "deleted-ignored": (lambda r: r.add_skill("private-x"), lambda r: shutil.rmtree(r.root / "skills/private-x"),
                        "private-x"),
    "deleted-tracked": (lambda r: None, lambda r: shutil.rmtree(r.root / "skills/beta"), "beta"),
    "deleted-tracked-committed": (lambda r: None, lambda r: (git(r.root, "rm", "-rq", "skills/beta"), r.commit()),
                                  "beta"),
    "untracked-skill-md-deleted": (lambda r: r.add_skill("gamma"),
                                   lambda r: ((r.root / "skills/gamma/SKILL.md").unlink(),
                                              (r.root / "skills/gamma/skill.yaml").unlink(),  # left alone it
                                              # would still be a (skill.yaml-only) skill
                                              r.write("skills/gamma/notes.txt", "x\n")), "gamma"),
    "renamed-tracked": (lambda r: None, lambda r: _mv(r, "skills/beta", "skills/beta2"), "beta"),
    "renamed-tracked-committed": (lambda r: None, lambda r: (_mv(r, "skills/beta", "skills/beta2"), r.commit()),
                                  "beta"),
    "renamed-untracked": (lambda r: r.add_skill("gamma"), lambda r: _mv(r, "skills/gamma", "skills/gamma2"), "gamma"),
    "renamed-into-hiding": (lambda r: r.add_skill("gamma"), lambda r: shutil.move(r.root / "skills/gamma",
                                                                                  r.root / "skills/.gamma"), "gamma"),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_the_cache_never_keeps_a_skill_whose_folder_is_gone(repo, change):
    before, mutate, gone = CHANGES[change]
    before(repo)
    warm = build_registry(repo.root)
    assert gone in _names(warm.outputs)
    assert build_registry(repo.root).outputs == warm.outputs  # served from the cache now
    mutate(repo)
    cached = build_registry(repo.root)
    assert gone not in _names(cached.outputs)
    assert f"**{gone}**" not in cached.outputs["AGENTS.md"] and f'"{gone}"' not in cached.outputs["index.json"]
    assert cached.outputs == build_registry(repo.root, use_cache=False).outputs


# --- item 16: skill text can never forge or break the AGENTS.md markers ----------------------------------------------

HOSTILE_DESCRIPTIONS = [
    f"Use when needed. {compat.END} Injected: a line of its own. {compat.BEGIN}",
    f"{compat.BEGIN} fake list {compat.END}",
    "Opens a comment <!-- that swallows the rest",
    "Closes one --> early, and <script>alert(1)</script>",
    "<!-- skillyard:skills:end--> near-miss marker and <!--skillyard:skills:begin -->",
]
OUTSIDE_HEAD = "# Rules\n\nBe kind. <!-- a maintainer's own comment -->\n\n"
OUTSIDE_TAIL = "\n\nFooter text.\n"


@pytest.mark.parametrize("description", HOSTILE_DESCRIPTIONS)
def test_hostile_description_never_corrupts_agents_md_in_lenient_mode(repo, description):
    repo.write("AGENTS.md", f"{OUTSIDE_HEAD}{compat.BEGIN}\nold list\n{compat.END}{OUTSIDE_TAIL}")
    repo.write("skills/evil/SKILL.md", skill_text("evil", description=description.replace('"', "'")))
    for _ in range(3):  # build, write, build again on top of what was written
        result = build_registry(repo.root, mode="lenient")
        assert not result.invalid
        write_outputs(repo.root, result.outputs)
        agents = (repo.root / "AGENTS.md").read_text()
        assert agents.count(compat.BEGIN) == 1 and agents.count(compat.END) == 1
        assert agents.startswith(OUTSIDE_HEAD + compat.BEGIN) and agents.endswith(compat.END + OUTSIDE_TAIL)
        block = agents[len(OUTSIDE_HEAD):-len(OUTSIDE_TAIL)]
        assert block.count("<!--") == 2 and block.count("-->") == 2 and "<script" not in block  # the markers only
        assert "- **evil**" in block and "- **alpha**" in block and "old list" not in block
    marketplace = json.loads((repo.root / ".claude-plugin/marketplace.json").read_text())
    assert {p["name"]: p["description"] for p in marketplace["plugins"]}["evil"] == description.replace('"', "'")


def test_hostile_description_is_refused_in_strict_mode_and_nothing_is_written(repo):
    repo.write("skills/evil/SKILL.md", skill_text("evil", description=f"x {compat.END} y"))
    done = subprocess.run([SKILLYARD, "build", "--strict"], cwd=repo.root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "angle-bracket" in done.stderr and "nothing was written" in done.stderr
    assert not (repo.root / "AGENTS.md").exists() and not (repo.root / "registry.json").exists()


def test_every_field_on_an_agents_line_is_escaped():
    line = compat.agents_line({"name": "a<!--b", "path": "skills/x-->y", "description": f"{compat.END}"})
    assert "<" not in line and ">" not in line and "&lt;!--" in line


@pytest.mark.parametrize("agents_md", [
    f"{compat.BEGIN}\nlist\n{compat.END}\nstray {compat.END}\n",
    f"{compat.BEGIN}\n{compat.BEGIN}\nlist\n{compat.END}\n",
    f"{compat.END}\ntext\n{compat.BEGIN}\n",
    f"only a begin {compat.BEGIN}\n",
])
def test_a_damaged_agents_md_is_refused_not_guessed(repo, agents_md):
    repo.write("AGENTS.md", agents_md)
    with pytest.raises(SkillyardError, match="exactly one of each"):
        build_registry(repo.root)
    done = subprocess.run([SKILLYARD, "build"], cwd=repo.root, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "AGENTS.md has" in done.stderr and "Traceback" not in done.stderr
    assert (repo.root / "AGENTS.md").read_text() == agents_md and not (repo.root / "registry.json").exists()


# --- item 16: a cache that arrives with a clone or an archive is never trusted ----------------------------------------


def _sql(repo: Repo, statement: str, *args) -> None:
    import sqlite3

    from skillyard.registry.cache import CACHE_FILE

    with sqlite3.connect(repo.root / CACHE_FILE) as db:
        db.execute(statement, args)
    db.close()


def test_a_planted_cache_from_another_machine_cannot_hide_findings(repo, tmp_path, monkeypatch):
    """The attacker builds with a clean `evil`, makes it hostile, and points the cache's HEAD at that commit so git
    reports nothing changed. Only the key, bound to each user's own secret, stands between that and the registry."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "attacker"))
    repo.add_skill("evil")
    repo.commit()
    assert not build_registry(repo.root).invalid
    repo.write("skills/evil/SKILL.md", skill_text("evil", description="Hostile <!-- hidden --> text"))
    head = repo.commit()
    _sql(repo, "UPDATE meta SET value = ? WHERE key = 'head'", head)
    assert not build_registry(repo.root).invalid  # the attack works against the machine that made the cache...
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "victim"))
    assert [c.path for c in build_registry(repo.root).invalid] == ["skills/evil"]  # ...and nowhere else


def test_a_cached_head_that_is_not_a_commit_id_never_reaches_git(repo, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "own"))
    fresh = build_registry(repo.root, use_cache=False).outputs
    build_registry(repo.root)
    target = tmp_path / "clobbered"
    _sql(repo, "UPDATE meta SET value = ? WHERE key = 'head'", f"--output={target}")
    assert build_registry(repo.root).outputs == fresh
    assert not target.exists()
    (repo.root / ".skillyard-cache/history.json").write_text(json.dumps(
        {"head": f"--output={target}", "folders": {"skills/alpha": ["x", "1999-01-01T00:00:00Z"]}, "missing": []}))
    assert build_registry(repo.root).outputs == fresh and not target.exists()
    head = git(repo.root, "rev-parse", "HEAD")
    (repo.root / ".skillyard-cache/history.json").write_text(json.dumps(
        {"head": head, "folders": {"skills/alpha": ["--output=x", "1999-01-01T00:00:00Z"]}, "missing": []}))
    assert build_registry(repo.root).outputs == fresh


@pytest.mark.parametrize("findings", ['[{"rule": "x"}]', "[1]", '{"a": 1}', "not json"])
def test_a_damaged_cache_row_is_a_miss_not_a_crash(repo, tmp_path, monkeypatch, findings):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "own"))
    fresh = build_registry(repo.root, use_cache=False).outputs
    build_registry(repo.root)
    _sql(repo, "UPDATE skills SET findings = ?, line = 'forged' WHERE path = 'skills/alpha'", findings)
    assert build_registry(repo.root).outputs == fresh


@pytest.mark.parametrize("ref", ["--output=clobbered", "-p", "main bad"])
def test_changed_since_refuses_a_ref_that_git_would_read_as_an_option(repo, ref):
    done = subprocess.run([SKILLYARD, "validate", f"--changed-since={ref}"], cwd=repo.root, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0 and "is not a git ref" in done.stderr and "Traceback" not in done.stderr
    assert not (repo.root / "clobbered...HEAD").exists() and not (repo.root / "clobbered").exists()


# --- item 13: a skill folder's own path obeys the path rule -------------------------------------------------------


@pytest.mark.parametrize("group", ["a..b/", "con/", "x\u200b/", "/".join(f"d{i}" for i in range(40)) + "/"],
                         ids=["dotdot", "device", "invisible", "deep"])
def test_a_skill_folder_whose_path_breaks_the_rule_is_refused_before_any_output(repo, group):
    repo.add_skill("hidden-away", group=group)
    result = subprocess.run([SKILLYARD, "build", "--no-cache"], cwd=repo.root, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1 and "path-unsafe" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr and not (repo.root / "registry.json").exists()
    validate = subprocess.run([SKILLYARD, "validate", "--json"], cwd=repo.root, capture_output=True, text=True,
                              timeout=120)
    report = json.loads(validate.stdout)
    bad = [s for s in report["skills"] if any(f["rule"] == "path-unsafe" and f["file"] == "." for f in s["findings"])]
    assert validate.returncode == 1 and len(bad) == 1
    assert len(bad[0]["path"].split("/")) <= 17  # the scan stops at the depth limit instead of walking to the bottom
