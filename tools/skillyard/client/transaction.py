"""The install transaction: plan every skill without touching the disk (inputs, MCP dependencies, rendering),
then write them all or none under the store lock — staged, journaled, committed by one record, put in place and
locked — and finish or discard whatever a killed run left journaled (`recover`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from skillyard.client import agent_mcp, backup, lockfile, placement, store
from skillyard.client import inputs as inputs_mod
from skillyard.client import mcp as mcp_mod
from skillyard.client.candidates import Candidate
from skillyard.client.store import StagedFile
from skillyard.errors import SkillyardError
from skillyard.format.inputs import RENDERED_FILES as RENDERED  # the site renders the same files


@dataclass
class Options:
    scope: str = "user"
    project_root: Path = field(default_factory=Path.cwd)
    home: Path = field(default_factory=Path.home)
    targets: list[str] = field(default_factory=list)
    cli_inputs: dict = field(default_factory=dict)
    dry_run: bool = False
    force: bool = False
    skip_deps_check: bool = False
    require_deps: bool | None = None  # None: the config's `mcp.require_deps`
    probe_servers: bool = False
    copy: bool = False

    @property
    def root(self) -> Path:
        return store.scope_root(self.scope, project_root=self.project_root, home=self.home)


@dataclass
class Outcome:
    name: str
    version: str
    status: str  # installed | updated | unchanged | planned
    path: str
    scope: str
    targets: list[dict]
    files: list[dict]
    inputs: dict
    deps: dict
    source: dict
    warnings: list[str] = field(default_factory=list)
    accepted: list[dict] = field(default_factory=list)  # the findings the user accepted (--accept), as locked

    def to_dict(self) -> dict:
        out = {"name": self.name, "version": self.version, "status": self.status, "path": self.path,
               "scope": self.scope, "targets": self.targets, "files": self.files, "inputs": self.inputs,
               "deps": self.deps, "source": self.source, "warnings": self.warnings,
               "total_size": sum(f["size"] for f in self.files)}
        if self.accepted:
            out["accepted"] = [dict(e) for e in self.accepted]
        return out


def render_files(files: list[StagedFile], values: dict) -> list[StagedFile]:
    out = []
    for item in files:
        if item.path in RENDERED and values:
            try:
                item = StagedFile(item.path, inputs_mod.render_bytes(item.data, values), item.executable)
            except UnicodeDecodeError:
                raise SkillyardError(f"{item.path} is not UTF-8 text; inputs cannot be rendered.",
                                     "Report it to the skill's author.") from None
        out.append(item)
    return out


def plan_inputs(candidate: Candidate, opts: Options, config, *, locked_inputs: dict | None) -> dict:
    if locked_inputs is not None:
        return dict(locked_inputs)
    configured = config.skill_inputs(candidate.name) if config is not None else {}
    return inputs_mod.resolve(candidate.inputs, cli=opts.cli_inputs, configured=configured, skill=candidate.name)


def check_deps(candidate: Candidate, opts: Options, config) -> tuple[mcp_mod.DepReport, list[str], dict | None]:
    """Check the skill's `mcp_deps` against the hub, or with none, against the target agents' own MCP servers.
    Returns the report, the warnings, and the lock's record of how the deps were handled."""
    if not candidate.mcp_deps:
        return mcp_mod.check(candidate.name, [], None), [], None
    policy = mcp_mod.policy_of(skip=opts.skip_deps_check, require=opts.require_deps, config=config)
    warnings: list[str] = []
    hub = None
    if policy == "skip":
        report = mcp_mod.skipped(candidate.name, candidate.mcp_deps)
    else:
        hub = mcp_mod.hub_from_config(config) if config is not None else None
        if hub is not None:
            report = mcp_mod.check(candidate.name, candidate.mcp_deps, hub)
        else:
            how = mcp_mod.AgentCheck(tuple(opts.targets), opts.project_root, opts.home, probe=opts.probe_servers,
                                     probe_config=mcp_mod.config_flag(config, "mcp.probe_servers"),
                                     timeout=agent_mcp.probe_timeout(config))
            report, warnings = mcp_mod.check_agents(candidate.name, candidate.mcp_deps, how)
    if opts.dry_run:
        return report, warnings, mcp_mod.deps_record(report, policy)
    warnings += mcp_mod.enforce(report, policy=policy, hub_configured=hub is not None)
    return report, warnings, mcp_mod.deps_record(report, policy)


@dataclass
class Plan:
    """One skill of a transaction, checked and ready to write: its rendered files and its outcome."""

    candidate: Candidate
    opts: Options
    files: list[StagedFile]
    outcome: Outcome
    deps_record: dict | None = None  # the lock's `deps`: how the MCP tools were handled


def plan(candidate: Candidate, opts: Options, config, *, locked_inputs: dict | None = None,
         expected_files: list[dict] | None = None) -> Plan:
    """Everything about one skill that can fail without touching the disk: name, inputs, MCP dependencies,
    rendering, the lockfile's expected files. Raises with the skill named; writes nothing."""
    store.check_name(candidate.name)  # it becomes a folder name: a hostile registry must not choose a path
    values = plan_inputs(candidate, opts, config, locked_inputs=locked_inputs)
    report, warnings, deps_record = check_deps(candidate, opts, config)
    files = render_files(candidate.files, values)
    entries = sorted((f.entry() for f in files), key=lambda e: e["path"])
    if expected_files is not None and entries != sorted(expected_files, key=lambda e: e["path"]):
        differ = sorted({e["path"] for e in entries} ^ {e["path"] for e in expected_files} |
                        {a["path"] for a in entries for b in expected_files if a["path"] == b["path"] and a != b})
        raise SkillyardError(f"{candidate.name}: the installed files would not match the lockfile "
                             f"({', '.join(differ)}); nothing was installed.",
                             "The source changed under its pin; update the lock with `skill update`.")
    canonical = store.canonical_dir(opts.root, candidate.name)
    outcome = Outcome(candidate.name, candidate.version, "planned", str(canonical), opts.scope,
                      [{"target": t, "scope": opts.scope} for t in opts.targets], entries, values, report.to_dict(),
                      lockfile.clean_source(candidate.source), [*candidate.warnings, *warnings],
                      accepted=list(candidate.accepted))
    if deps_record is not None:
        outcome.deps["status"] = deps_record["status"]
    return Plan(candidate, opts, files, outcome, deps_record)


def install(candidate: Candidate, opts: Options, config, *, locked_inputs: dict | None = None,
            expected_files: list[dict] | None = None) -> Outcome:
    """Install one verified candidate. `locked_inputs`/`expected_files` come from a lockfile on restore."""
    return install_all([plan(candidate, opts, config, locked_inputs=locked_inputs,
                             expected_files=expected_files)])[0]


def install_all(plans: list[Plan]) -> list[Outcome]:
    """Install planned skills of one scope as one transaction: all of them, or none.

    Under the store lock, every skill is checked against the disk (local edits, foreign target folders) before
    the first is staged; then each is staged, journaled as a member of one group, and the group's commit record
    is written - the one step that decides. A kill before it leaves journals that recovery discards (nothing was
    installed); after it, recovery finishes every member (everything was). A one-skill install needs no group."""
    if not plans or plans[0].opts.dry_run:
        return [p.outcome for p in plans]
    roots = {p.opts.root.resolve() for p in plans}
    if len(roots) != 1:  # pragma: no cover - the CLI installs into one scope per command
        raise SkillyardError("One install writes into one scope.", "Install project and user skills separately.")
    root = plans[0].opts.root
    with store.store_lock(root):
        recover(root)
        store.sweep(root)
        intents = [(p, _intent(p)) for p in plans]  # every check first: a refusal here has written nothing
        for p, (intent, _same) in intents:
            if intent["edited"]:  # --force over the user's edits: keep their folder first (client/backup.py)
                kept = backup.keep_copy(root, p.candidate.name)
                p.outcome.warnings.append(f"your edits to {', '.join(intent['edited'][:10])} are kept in {kept}")
        group = store.new_group() if len(plans) > 1 else None
        written: list[dict] = []
        try:
            for p, (intent, same) in intents:
                if not same or p.opts.force:
                    staging = store.stage_tree(store.canonical_dir(root, p.candidate.name), p.files,
                                               extra={store.SKILL_LOCK: lockfile.skill_lock_text(intent["lock"]).encode()})
                    intent["staging"], intent["retired"] = staging.name, store.retired_path(staging.parent / p.candidate.name).name
                if group:
                    intent["group"] = group
                written.append(intent)
                store.write_journal(root, intent)
            if group:
                store.write_commit(root, group, [i["name"] for i in written])
        except BaseException:
            for intent in written:  # not committed: undo the staging and the journals, newest first
                _discard(root, intent)
            raise
        outcomes = []
        for p, (intent, same) in intents:
            try:
                lock_doc = apply_intent(root, intent)
            except (OSError, SkillyardError) as exc:  # after the commit point: finish later, say so exactly
                done = ", ".join(o.name for o in outcomes) or "none yet"
                why = exc.message if isinstance(exc, SkillyardError) else f"{exc.strerror or exc} ({exc.filename})"
                raise SkillyardError(f"{p.candidate.name} could not be put in place: {why}. Already in place: "
                                     f"{done}; the rest of this install is journaled, not undone.",
                                     "Fix the cause, then run any `skill` command that changes skills (e.g. "
                                     "`skill install` again): it finishes the journaled install first.") from None
            p.outcome.status = "unchanged" if same and not p.opts.force else \
                ("updated" if intent.get("previous") else "installed")
            p.outcome.targets = lock_doc["targets"]
            outcomes.append(p.outcome)
        if group:
            store.clear_commit(root, group)
    return outcomes


def _intent(p: Plan) -> tuple[dict, bool]:
    """The journal entry of one planned skill, after the disk checks (local edits, foreign target folders);
    writes nothing. Returns (intent, whether the installed copy is already exactly this)."""
    candidate, opts, entries = p.candidate, p.opts, p.outcome.files
    canonical = store.canonical_dir(opts.root, candidate.name)
    previous = _previous_lock(canonical)
    if previous is not None:
        edited = store.edited_files(canonical, previous.get("files", []))
        if edited and not opts.force:
            raise SkillyardError(f"{candidate.name} has local edits that installing would overwrite: "
                                 f"{', '.join(edited)}; nothing was installed.",
                                 "Keep a copy of your changes, then run again with --force.")
    elif canonical.exists() and not opts.force:
        raise SkillyardError(f"{canonical} exists but was not installed by `skill` (no {store.SKILL_LOCK}); "
                             "nothing was installed.", "Move it away, or pass --force to replace it.")
    else:  # nothing there, or --force over a folder `skill` did not install: every file in it is the user's
        edited = sorted(store.scan_files(canonical)) if canonical.is_dir() else []
    prev_targets = previous.get("targets", []) if previous else []
    placement.check_target_paths(candidate.name, opts, canonical, prev_targets)
    values = p.outcome.inputs
    same = (previous is not None and previous["resolved_source"].get("integrity") == candidate.source["integrity"]
            and previous.get("resolved_inputs") == values and previous.get("files") == entries
            and (previous.get("accepted") or []) == candidate.accepted)
    lock_doc = lockfile.skill_lock_document(skill=candidate.name, version=candidate.version,
                                            resolved_source=candidate.source, resolved_inputs=values,
                                            targets=prev_targets, files=entries, deps=p.deps_record,
                                            accepted=candidate.accepted)
    return {"action": "install", "name": candidate.name, "scope": opts.scope, "targets": list(opts.targets),
            "copy": opts.copy, "lock": lock_doc, "staging": None, "retired": None,
            "previous": previous is not None, "edited": edited}, same


def _discard(root: Path, intent: dict) -> None:
    """Undo a journaled install that was never committed: drop its staged folder, then its journal."""
    if intent.get("staging"):
        store.remove_tree(store.skills_dir(root) / intent["staging"])
    store.clear_journal(root, intent["name"])


def apply_intent(root: Path, intent: dict) -> dict | None:
    """Carry out a journaled change to one skill, from wherever an earlier, killed run stopped; then drop the
    journal. Every step is idempotent, so it is both the normal path and the recovery.

    install: swap the staged folder in (or, if it was lost, keep the old one and give up), place the targets,
    then write the final skill.lock.json and the project's skills.lock.json entry - the two lockfiles reach the
    new version together. uninstall: remove the placements, the folder, then the project entry.
    Returns the final skill lock of an install (None for an uninstall or a rollback)."""
    root = Path(root)
    name = store.check_name(intent["name"])
    canonical = store.canonical_dir(root, name)
    scope = intent["scope"]
    project = scope == "project"
    result = None
    if intent["action"] == "install":
        swapped = True
        if intent.get("staging"):
            swapped = store.swap_in(canonical, canonical.parent / intent["staging"], canonical.parent / intent["retired"])
        if swapped:
            store.clean_lock_temps(canonical)  # before a copy target copies it
            opts = Options(scope=scope, project_root=root, home=root, targets=list(intent["targets"]),
                           copy=bool(intent.get("copy")))
            lock_doc = dict(intent["lock"])
            placed = placement.place_targets(name, canonical, opts)
            placed_paths = {os.path.abspath(p["path"]) for p in placed}
            kept = [t for t in lock_doc.get("targets", []) if os.path.abspath(t["path"]) not in placed_paths]
            lock_doc["targets"] = sorted(kept + placed, key=lambda t: (t["scope"], t["target"], t["path"]))
            lockfile.write_skill_lock(canonical, lock_doc)
            if project:
                lockfile.update_project_lock(root, name, lockfile.project_entry(lock_doc, root))
            result = lock_doc
    else:
        placement.remove_targets(intent.get("targets") or [], name=name, root=root, scope=scope,
                       keep={str(canonical.absolute())})
        store.retire(canonical)
        store.remove_leftovers(root, name)  # a kill mid-retire left the old folder aside: it must not come back
        if project and intent.get("in_project_lock"):
            lockfile.update_project_lock(root, name, None)
    store.clear_journal(root, name)
    return result


def recover_locked(root: Path) -> list[str]:
    """`recover` for a command that reads the store before it changes it (update, restore): take the lock,
    finish journaled work, then sweep, so what it reads is one consistent state."""
    if not store.skills_dir(root).is_dir():
        return []  # nothing installed, nothing to finish (and a dry run creates no folders)
    with store.store_lock(root):
        done = recover(root)
        store.sweep(root)
    return done


def recover(root: Path) -> list[str]:
    """Finish every change a killed run left journaled in this scope (call under the store lock, before `sweep`,
    which would otherwise delete the folders a journal still needs). Returns the names it finished."""
    done = []
    committed = store.committed_groups(root)
    for path, intent in store.read_journals(root):
        if intent.get("group") is not None and intent["group"] not in committed:
            _discard(root, intent)  # a multi-skill install killed before its commit record: none of it happened
            continue
        try:
            apply_intent(root, intent)
        except SkillyardError as exc:
            raise SkillyardError(f"An interrupted change to {intent['name']} (journal {path}) could not be "
                                 f"finished: {exc.message}",
                                 exc.fix or f"Fix the cause, or delete {path.name} and reinstall with --force.") \
                from None
        except OSError as exc:
            raise SkillyardError(f"An interrupted change to {intent['name']} (journal {path}) could not be "
                                 f"finished: {exc.strerror or exc} ({exc.filename}).",
                                 f"Fix the cause, or delete {path.name} and reinstall with --force.") from None
        except (KeyError, TypeError, ValueError, AttributeError) as exc:  # a journal edited by hand
            raise SkillyardError(f"The journal {path} is malformed ({type(exc).__name__}: {exc}).",
                                 f"Delete {path.name}, then reinstall {intent['name']} with --force.") from None
        done.append(intent["name"])
    for group in committed:
        store.clear_commit(root, group)  # every member is finished (or a failure above has raised)
    return done


def _previous_lock(canonical: Path) -> dict | None:
    if not (canonical / store.SKILL_LOCK).is_file():
        return None
    return lockfile.read_skill_lock(canonical)
