"""The standard is the floor: every folder the reference validator (skills-ref) accepts must pass lenient
`skillyard validate` and be listed by `skill prompt` from a project's `.agents/skills`, unless a refusal has a
security reason written down in site/pages/security.md ("The open standard is the floor"). Writes
tests/conformance/standard-floor-exceptions.md: the numbers and each exception with its reason.

    python tests/conformance/floor_diff.py ../shared/corpus [--out FILE]

Both checks run the real command-line tools (installed next to this interpreter) as subprocesses, on copies of the
folders, a batch of folders with distinct names at a time. Exit status 1 when an exception has no documented
reason or when exceptions reach 1% of the folders skills-ref accepts. The report holds folder names and rule ids
only, never corpus content.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
LIMIT = 0.01  # exceptions must stay under 1% of the folders skills-ref accepts

# Every refusal of a standard-valid folder that lenient mode or the runtime may make, by rule id (the runtime's
# reasons start with the rule id, or with the words below), with its security reason. The same ids are listed in
# site/pages/security.md, section "The open standard is the floor"; a test holds the two lists equal.
SECURITY_REASONS = {
    "security-invisible-unicode": "invisible characters hide text from reviewers (the security scanner)",
    "security-control-character": "control characters and bare carriage returns rewrite what a terminal or "
                                  "reviewer sees (the security scanner)",
    "invisible-unicode": "invisible characters in frontmatter hide text from reviewers and reach the model's index",
    "control-character": "control characters in frontmatter reach terminals and the model's index",
    "encoding": "a text file that is not UTF-8 cannot be scanned",
    "path-unsafe": "a path no stage may write or serve (the shared path rule)",
    "path-collision": "two names one case-insensitive disk merges into one file",
    "special-file": "a device, FIFO or socket in a skill folder blocks or leaks on read",
    "symlink-absolute": "a link out of the folder exposes files outside the skill",
    "symlink-escape": "a link out of the folder exposes files outside the skill",
    "symlink-dir": "a linked folder can loop or lead outside the skill",
    "symlink-broken": "a broken link is a file no stage can read or hash",
    "name-reserved": "a Windows device name cannot be created as a folder (the shared path rule)",
    "name-format": "a non-ASCII `name`: confusable letters make one skill look like another to people and models",
    "file-too-large": "size bound: a file over 4 MiB by default (denial of service on build, scan and install)",
    "package-too-large": "size bound: a skill over 10 MiB by default (denial of service on build, scan and install)",
    "too-many-files": "size bound: more than 200 files (denial of service on build, scan and install)",
    "skill-md-too-large": "size bound: the runtime reads a SKILL.md of at most 1 MiB",
    "frontmatter-line-too-large": "size bound: a frontmatter line over 64 KiB",
    "yaml-too-large": "size bound: a frontmatter over 64 KiB",
    "yaml-depth": "size bound: YAML nested deeper than 32 levels",
    "yaml-too-many-nodes": "size bound: YAML with more than 10,000 values",
    "yaml-alias": "an alias expands a few bytes into gigabytes (billion laughs)",
    "yaml-tag": "a tag constructs objects outside the JSON data model",
    "yaml-value": "a number JSON cannot hold",
    "folder-path": "the skill folder's own name breaks the shared path rule",
    # The behaviour rules: each is an error only for a behaviour (what the skill would make the agent do), never for
    # a word; dual-use security skills that quote attacks list them as reviewed exceptions in skill.yaml.
    "security-pipe-to-shell": "downloads code from a non-vendor host (or under a \"Prerequisites\" lure) and runs it",
    "security-download-exec": "downloads a program and runs it, in any spelling (bash -c \"$(curl …)\", iex (irm …))",
    "security-obfuscated-exec": "decodes or computes code and runs it (exec(b64decode(…)), new Function(atob(…)))",
    "security-exfiltration": "reads a secret and sends it off the machine (webhook, paste site, DNS, image URL)",
    "security-persistence": "makes itself run again later (shell rc, LaunchAgent, systemd unit, authorized_keys)",
    "security-reverse-shell": "hands a remote host a shell (bash -i >& /dev/tcp/…, nc -e /bin/sh, socket + dup2)",
    "security-safety-bypass": "turns off the agent's or the OS's protections (--dangerously-skip-permissions)",
    "security-prompt-injection": "overrides the user's or the system's instructions, or forges role tags",
    "security-concealment": "tells the agent to hide what it does from the user while acting",
    "security-typosquat": "runs a package whose name imitates a well-known one",
    "security-package-index": "installs packages from an insecure (http) index",
    "security-no-confirmation": "tells the agent never to ask before a destructive or sending step",
    "security-remote-instructions": "has the agent fetch and follow instructions from a URL on a schedule",
    "security-agent-config-write": "plants standing orders in the agent's memory or configuration files",
    "security-tool-poisoning": "hides orders to the agent in an MCP tool's description",
    "security-archive": "ships an archive nobody can review (password-protected or unreadable)",
    "security-opaque-code": "ships compiled code or bytecode with no source in the skill",
}
RUNTIME_WORDS = {"SKILL.md is larger than": "skill-md-too-large", "the folder": "folder-path"}


def skill_folders(root: Path, limit: int = 5000) -> list[Path]:
    from tests.conformance.corpus_diff import skill_folders as find

    return find(root, limit)


def reference_accepts(folder: Path) -> bool:
    from skills_ref.validator import validate

    try:
        return validate(folder) == []
    except Exception:  # noqa: BLE001 - a crash of the reference is not an acceptance
        return False


def batches(folders: list[Path]) -> list[list[Path]]:
    """Folders grouped so that no two in a batch share a name (one `.agents/skills` holds each batch)."""
    out: list[list[Path]] = []
    for folder in folders:
        for batch in out:
            if all(other.name != folder.name for other in batch):
                batch.append(folder)
                break
        else:
            out.append([folder])
    return out


def _env(home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SKILL_", "XDG_"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), XDG_CONFIG_HOME=str(home / ".config"),
               NO_COLOR="1")
    return env


def check_batch(batch: list[Path], scratch: Path) -> dict[Path, tuple[list[str], list[str]]]:
    """{folder: (lenient validate's error rules, prompt's refusal rules)} for one batch, by the real CLIs."""
    project, home = scratch / "project", scratch / "home"
    skills = project / ".agents" / "skills"
    skills.mkdir(parents=True)
    home.mkdir()
    (project / ".git").mkdir()
    copies = {}
    for folder in batch:
        shutil.copytree(folder, skills / folder.name, symlinks=True)
        copies[folder.name] = folder
    env = _env(home)
    validated = subprocess.run([str(BIN / "skillyard"), "validate", "--lenient", "--json", "--no-cache", "--root",
                                str(skills), *(str(skills / name) for name in copies)],
                               capture_output=True, text=True, env=env, cwd=project, timeout=600)
    report = json.loads(validated.stdout)
    errors = {name: [] for name in copies}
    for entry in report["skills"]:
        if entry["path"] in errors:
            errors[entry["path"]] = sorted({f["rule"] for f in entry["findings"] if f["severity"] == "error"})
    prompted = subprocess.run([str(BIN / "skill"), "prompt", "--format", "json", "--report", "--no-cache"],
                              capture_output=True, text=True, env=env, cwd=project, timeout=600)
    index = json.loads(prompted.stdout)
    listed = {Path(s["path"]).name for s in index["skills"]}
    refused: dict[str, list[str]] = {name: [] for name in copies}
    for broken in index["report"]["broken"]:
        rel = Path(broken["path"]).relative_to(skills).parts[0]
        if rel in refused:
            refused[rel].append(_runtime_rule(broken["reason"]))
    out = {}
    for name, folder in copies.items():
        hidden = [] if name in listed else (sorted(set(refused[name])) or ["not-listed"])
        out[folder] = (errors[name], hidden)
    return out


def _runtime_rule(reason: str) -> str:
    for words, rule in RUNTIME_WORDS.items():
        if reason.startswith(words):
            return rule
    head = reason.split(":", 1)[0]
    return head if head.replace("-", "").isalnum() and " " not in head else "other"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--out", type=Path, default=HERE / "standard-floor-exceptions.md")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"{args.corpus}: not a folder", file=sys.stderr)
        return 2
    folders = skill_folders(args.corpus)
    accepted = [f for f in folders if reference_accepts(f)]
    results: dict[Path, tuple[list[str], list[str]]] = {}
    with tempfile.TemporaryDirectory(prefix="floor-") as scratch:
        for number, batch in enumerate(batches(accepted)):
            results.update(check_batch(batch, Path(scratch) / f"batch-{number}"))
    rows = [(f.relative_to(args.corpus).as_posix(), *results[f]) for f in accepted if any(results[f])]
    undocumented = sorted({rule for _, ours, hidden in rows for rule in ours + hidden if rule not in SECURITY_REASONS})
    share = len(rows) / len(accepted) if accepted else 0.0
    rules = Counter(rule for _, ours, hidden in rows for rule in set(ours + hidden))
    lines = ["# Standard-valid skills we refuse or hide, and why", "",
             "Written by `tests/conformance/floor_diff.py` (nox session `conformance`): every folder skills-ref 0.1.1 "
             "accepts is checked with `skillyard validate --lenient` and listed with `skill prompt` from a project's "
             "`.agents/skills`. Each exception is a refusal with a security reason documented in "
             "site/pages/security.md (\"The open standard is the floor\"). Folder names and rule ids only.", "",
             f"- folders: {len(folders)}",
             f"- skills-ref accepts: {len(accepted)}",
             f"- lenient validate refuses: {sum(1 for _, ours, _ in rows if ours)}",
             f"- skill prompt hides: {sum(1 for _, _, hidden in rows if hidden)}",
             f"- exceptions: {len(rows)} ({share:.2%} of the folders skills-ref accepts; the limit is "
             f"{LIMIT:.0%})", ""]
    if rows:
        lines += ["## Reasons", ""]
        lines += [f"- `{rule}` ({count} folder(s)): {SECURITY_REASONS.get(rule, 'NOT DOCUMENTED')}"
                  for rule, count in sorted(rules.items())]
        lines += ["", "## Folders", "", "| folder | lenient validate | skill prompt |", "| --- | --- | --- |"]
        for name, ours, hidden in rows:
            lines.append(f"| `{name}` | {', '.join(f'`{r}`' for r in ours) or 'accepts'} | "
                         f"{', '.join(f'`{r}`' for r in hidden) or 'lists'} |")
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(folders)} folder(s), {len(accepted)} accepted by skills-ref, {len(rows)} exception(s) "
          f"({share:.2%}): {args.out}")
    if undocumented:
        print(f"refusals without a documented security reason: {', '.join(undocumented)}", file=sys.stderr)
    if share >= LIMIT:
        print(f"exceptions are {share:.2%} of the accepted folders; the limit is {LIMIT:.0%}", file=sys.stderr)
    return 1 if undocumented or share >= LIMIT else 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parents[1]))
    raise SystemExit(main())
