"""The expression contexts GitHub gives a job that act 0.2.89 does not, and how the session supplies them.

act builds its `job` context with status, container and services only, its `strategy` context with fail-fast and
max-parallel only, and no flag, `--env`, event payload, `.actrc` or `--matrix` adds a property to either (measured:
`test_act_still_lacks_what_the_table_supplies` runs act and compares). Our reusable workflows read
`job.workflow_sha` / `job.workflow_repository` (which Skillyard commit to install) and `strategy.job-index` (a
shard's artifact name); under act they read as empty strings.

`LACKING` is the one declared list of those references, each with the value GitHub would give. Before act runs, the
sandbox writes that value in place of each reference inside an expression (`${{ ... }}` or an `if:`) of the
throwaway clone's workflow files, and puts the files back byte for byte afterwards (`Supplied`); nothing else in
them is changed (`edits_beyond_table`, checked at every application). The project's committed files are never touched; `test_contexts.py` checks that every reference our workflows make to a property
act lacks is in the table, and that a run leaves the clone's workflow files as committed."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.workflows_act import yamlcache

# What act 0.2.89 puts in these contexts (its `toJSON(job)`, `toJSON(strategy)` and `toJSON(github)`, printed by a
# job run with `-P ubuntu-latest=-self-hosted`). A reference to any other property of them is one act lacks.
ACT_PROVIDES = {
    "job": frozenset({"status", "container", "services"}),
    "strategy": frozenset({"fail-fast", "max-parallel"}),
    "github": frozenset({
        "action", "action_path", "action_ref", "action_repository", "actor", "api_url", "base_ref", "event",
        "event_name", "event_path", "graphql_url", "head_ref", "job", "job_name", "ref", "ref_name", "ref_type",
        "repository", "repository_owner", "retention_days", "run_attempt", "run_id", "run_number",
        "runner_perflog", "runner_tracking_id", "server_url", "sha", "token", "workflow", "workspace"}),
}

# `job.x`, `strategy.x`, `github.x`, and the `fromJSON(toJSON(job)).x` spelling (actionlint does not know
# job.workflow_sha yet, so our workflows read it that way).
_REFERENCE = re.compile(r"(?:fromJSON\(\s*toJSON\(\s*(?P<wrapped>job|strategy|github)\s*\)\s*\)|"
                        r"(?<![\w.-])(?P<bare>job|strategy|github))\.(?P<prop>[A-Za-z_][\w-]*)")
_EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.S)
_IF_LINE = re.compile(r"^(?P<head>\s*(?:-\s+)?if:\s*)(?P<expr>(?!\$\{\{)[^#\n]*?)(?P<tail>\s*(?:#.*)?)$", re.M)
_JOB_KEY = re.compile(r"^  (?P<id>[A-Za-z_][\w-]*):\s*(?:#.*)?$", re.M)


@dataclass(frozen=True)
class Where:
    """What a value depends on: the workflow file, the job (its YAML), every workflow of the checkout, the commit
    act loads them from, and the repository."""
    folder: Path
    file: str
    job_id: str
    job: dict
    workflows: dict[str, dict]
    commit: str
    repository: str


@dataclass(frozen=True)
class Lacking:
    reference: str                      # `context.property`
    github_gives: str                   # what GitHub puts there (its docs), for the README and failure messages
    supply: Callable[[Where], str]      # an expression act can evaluate to that value


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _workflow_sha(where: Where) -> str:
    """A local reusable workflow (`uses: ./.github/workflows/...`) is loaded from its caller's commit, and a
    top-level job's workflow from the run's own commit: in both cases the commit act loads the files from."""
    return _literal(where.commit)


def _workflow_repository(where: Where) -> str:
    return _literal(where.repository)


def _on(data: dict) -> dict:
    return data.get("on", data.get(True)) or {}


def _matrix_values(where: Where) -> tuple[str, list]:
    """The one dimension of the job's matrix and its entries, as GitHub expands them. A list literal, or
    `${{ fromJSON(inputs.X) }}` in a reusable workflow: X as each local caller passes it, else its default."""
    matrix = ((where.job.get("strategy") or {}).get("matrix")) or {}
    dims = {k: v for k, v in matrix.items() if k not in ("include", "exclude")} if isinstance(matrix, dict) else {}
    if len(dims) != 1 or set(matrix) - set(dims):
        raise ValueError(f"{where.file}: job {where.job_id}: strategy.job-index is supplied for a one-dimension "
                         "matrix without include/exclude only; extend contexts.py for this matrix")
    (key, values), = dims.items()
    if isinstance(values, list):
        return key, [values]
    m = re.fullmatch(r"\$\{\{\s*fromJSON\(\s*inputs\.([\w-]+)\s*\)\s*\}\}", str(values).strip())
    call = (_on(where.workflows[where.file]) or {}).get("workflow_call") if isinstance(
        _on(where.workflows[where.file]), dict) else None
    if not m or call is None:
        raise ValueError(f"{where.file}: job {where.job_id}: matrix {key} = {values!r}: contexts.py can expand a "
                         "list literal or fromJSON(inputs.X) of a reusable workflow only")
    name = m.group(1)
    default = ((call.get("inputs") or {}).get(name) or {}).get("default")
    expansions = []
    for caller in where.workflows.values():
        for job in (caller.get("jobs") or {}).values():
            if str(job.get("uses", "")) == f"./.github/workflows/{where.file}":
                given = (job.get("with") or {}).get(name, default)
                if isinstance(given, str) and "${{" in given:
                    raise ValueError(f"{where.file}: input {name} is an expression in a caller; cannot expand")
                expansions.append(json.loads(given) if isinstance(given, str) else given)
    return key, expansions or [json.loads(default)]


def _job_index(where: Where) -> str:
    """GitHub numbers a matrix's jobs from 0 in the order of the expanded entries; for one dimension, an entry's
    index is its position in the list. The expression maps `matrix.<key>` to that position."""
    key, expansions = _matrix_values(where)
    index: dict[str, int] = {}
    for values in expansions:
        for i, value in enumerate(values):
            if not isinstance(value, str) or index.setdefault(value, i) != i:
                raise ValueError(f"{where.file}: job {where.job_id}: matrix {key}: {value!r} has no single index")
    table = json.dumps(index, separators=(",", ":"))   # no ": " (YAML) in the written expression
    return f"fromJSON({_literal(table)})[matrix.{key}]"


LACKING: dict[str, Lacking] = {item.reference: item for item in (
    Lacking("job.workflow_sha", "the commit of the reusable workflow's repository at the ref its caller names "
            "(a local ./.github/workflows call: the caller's own commit)", _workflow_sha),
    Lacking("job.workflow_repository", "owner/name of the repository the reusable workflow was loaded from",
            _workflow_repository),
    Lacking("strategy.job-index", "the index of this matrix job among the matrix's expanded entries, from 0",
            _job_index),
)}


# ---- finding references ---------------------------------------------------------------------------------------
def expressions(text: str) -> list[tuple[int, int]]:
    """(start, end) of every expression body in a workflow file: inside `${{ }}`, and a bare `if:` value."""
    spans = [(m.start(1), m.end(1)) for m in _EXPRESSION.finditer(text)]
    spans += [(m.start("expr"), m.end("expr")) for m in _IF_LINE.finditer(text) if m.group("expr").strip()]
    return sorted(spans)


def references(text: str) -> list[tuple[str, int, int]]:
    """Every `context.property` reference inside an expression: (reference, start, end) in `text`."""
    out = []
    for start, end in expressions(text):
        for m in _REFERENCE.finditer(text, start, end):
            context = m.group("wrapped") or m.group("bare")
            out.append((f"{context}.{m.group('prop')}", m.start(), m.end()))
    return out


def lacking_references(folder: Path) -> dict[str, set[str]]:
    """reference -> the files that make it, for every reference to a property act does not provide."""
    found: dict[str, set[str]] = {}
    for path in sorted(folder.glob("*.y*ml")):
        for ref, _, _ in references(path.read_text(encoding="utf-8")):
            context, prop = ref.split(".", 1)
            if prop not in ACT_PROVIDES[context]:
                found.setdefault(ref, set()).add(path.name)
    return found


def _job_spans(text: str) -> list[tuple[str, int, int]]:
    """(job id, start, end) of each job's block under the top-level `jobs:` key."""
    top = re.search(r"^jobs:\s*(?:#.*)?$", text, re.M)
    if not top:
        return []
    after = re.search(r"^\S", text[top.end():], re.M)
    stop = top.end() + after.start() if after else len(text)
    keys = list(_JOB_KEY.finditer(text, top.end(), stop))
    return [(m.group("id"), m.start(), keys[i + 1].start() if i + 1 < len(keys) else stop)
            for i, m in enumerate(keys)]


def supply(text: str, file: str, folder: Path, workflows: dict[str, dict], commit: str, repository: str) -> str:
    """`text` with every reference in `LACKING` replaced by the value GitHub would give (a reference outside any
    job, or to a property act lacks that the table does not name, is an error). Nothing else is changed
    (`edits_beyond_table` checks every application)."""
    spans = _job_spans(text)
    pieces, last = [], 0
    for ref, start, end in references(text):
        context, prop = ref.split(".", 1)
        if prop in ACT_PROVIDES[context]:
            continue
        if ref not in LACKING:
            raise ValueError(f"{file}: `{ref}` is not provided by act and not in tests/workflows_act/contexts.py "
                             "LACKING: add what GitHub gives there")
        job_id = next((j for j, s, e in spans if s <= start < e), None)
        if job_id is None:
            raise ValueError(f"{file}: `{ref}` outside a job")
        where = Where(folder, file, job_id, (workflows[file].get("jobs") or {})[job_id], workflows, commit,
                      repository)
        pieces += [text[last:start], f"({LACKING[ref].supply(where)})"]
        last = end
    return "".join(pieces) + text[last:]


def edits_beyond_table(original: str, supplied: str) -> list[int]:
    """The (1-based) lines where `supplied` differs from `original` by more than a value, `(...)` on one line, in
    place of each reference the table names; empty when the only edits are the table's."""
    before, after = original.splitlines(keepends=True), supplied.splitlines(keepends=True)
    if len(before) != len(after):
        return [min(len(before), len(after)) + 1]
    bad = []
    offset = 0
    refs = [(start, end) for ref, start, end in references(original) if ref in LACKING]
    for number, (a, b) in enumerate(zip(before, after, strict=True), 1):
        line_refs = [(s - offset, e - offset) for s, e in refs if offset <= s < offset + len(a)]
        offset += len(a)
        if a == b:
            continue
        pattern, last = [], 0
        for start, end in line_refs:
            pattern += [re.escape(a[last:start]), r"\([^\n]*?\)"]
            last = end
        pattern.append(re.escape(a[last:]))
        if not line_refs or not re.fullmatch("".join(pattern), b):
            bad.append(number)
    return bad


class Supplied:
    """The clone's workflow files with `LACKING` supplied while act runs, put back byte for byte after; nested
    and concurrent users (the runs of one wave) share one application."""

    def __init__(self, folder: Path, commit: Callable[[], str], repository: str):
        self.folder, self.commit, self.repository = folder, commit, repository
        self.enabled = True
        self._lock = threading.Lock()
        self._depth = 0
        self._saved: dict[Path, bytes] = {}

    def __enter__(self):
        with self._lock:
            if self._depth == 0 and self.enabled:
                self._apply()
            self._depth += 1
        return self

    def __exit__(self, *exc):
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                for path, data in self._saved.items():
                    path.write_bytes(data)
                self._saved = {}

    def _apply(self) -> None:
        paths = sorted(p for p in self.folder.glob("*.y*ml"))
        texts = {p: p.read_bytes() for p in paths}
        workflows = {p.name: yamlcache.safe_load(t) or {} for p, t in texts.items()}
        commit = self.commit()
        changed = {}
        for path, data in texts.items():   # all checked before any file is written
            text = data.decode("utf-8")
            new = supply(text, path.name, self.folder, workflows, commit, self.repository)
            beyond = edits_beyond_table(text, new)
            if beyond:
                raise AssertionError(f"{path.name}: the sandbox changed more than the contexts table supplies "
                                     f"(line {beyond[0]}): a workflow must run as committed")
            if new != text:
                changed[path] = new
        for path, new in changed.items():
            self._saved[path] = texts[path]
            path.write_text(new, encoding="utf-8")
