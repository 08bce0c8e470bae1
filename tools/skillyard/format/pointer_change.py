"""What a bump changes: two source.yaml documents in, a structured summary out (and its text and Markdown).

`external bump` prints it, `--json` gives it as data, and the bump PR's body renders it (`bot/bump_render.py`), so the maintainer
(or the automerge rules) see the same facts: files added, removed and changed with sizes, the version, the
security findings that appeared or went away, the licence, and whether the upstream repository or folder moved.
Pure: dicts in, dicts and lines out.
"""

from __future__ import annotations

from skillyard.format import meaning_change
from skillyard.format.findings import finding_identity
from skillyard.format.meaning_change import exception_files_touched, meaning_changes
from skillyard.format.safety import visible

MAX_LISTED = 50  # files or findings named in the text and Markdown; the rest are counted


def finding_key(finding: dict) -> tuple:
    """A finding's identity across two pins: rule, file and the digest of the whole text it matched
    (`findings.finding_identity`; line numbers move when text is inserted, and a message quotes only a prefix)."""
    return finding_identity(finding)


def is_security(finding: dict) -> bool:
    return str(finding.get("rule", "")).startswith("security-")


def new_findings(old: list[dict], new: list[dict]) -> tuple[list[dict], list[dict]]:
    """(findings in `new` that `old` lacks, findings of `old` that `new` lacks), counted as multisets."""
    def minus(a: list[dict], b: list[dict]) -> list[dict]:
        left: dict[tuple, int] = {}
        for f in b:
            left[finding_key(f)] = left.get(finding_key(f), 0) + 1
        out = []
        for f in a:
            key = finding_key(f)
            if left.get(key):
                left[key] -= 1
            else:
                out.append(f)
        return out

    return minus(new, old), minus(old, new)


def licences(data: dict) -> dict:
    skill = data.get("skill") or {}
    return {"license": data.get("license"), "skill_license": skill.get("license")}


def summarise_change(old: dict, new: dict) -> dict:
    """The change from pointer document `old` to `new` (both as `format.pointer` parses them)."""
    before = {f["path"]: f for f in old.get("files") or []}
    after = {f["path"]: f for f in new.get("files") or []}
    added = [{"path": p, "size": after[p]["size"]} for p in sorted(set(after) - set(before))]
    removed = [{"path": p, "size": before[p]["size"]} for p in sorted(set(before) - set(after))]
    changed = [{"path": p, "old_size": before[p]["size"], "new_size": after[p]["size"]}
               for p in sorted(set(before) & set(after))
               if (before[p]["sha256"], bool(before[p].get("executable"))) !=
               (after[p]["sha256"], bool(after[p].get("executable")))]
    appeared, resolved = new_findings(old.get("findings") or [], new.get("findings") or [])
    old_up, new_up = old.get("upstream") or {}, new.get("upstream") or {}
    old_lic, new_lic = licences(old), licences(new)
    return {
        "name": new.get("name") or old.get("name"),
        "repository": new_up.get("repository"), "path": new_up.get("path"),
        "old_commit": old_up.get("commit"), "new_commit": new_up.get("commit"),
        "upstream_changed": any(old_up.get(k) != new_up.get(k) for k in ("host", "repository", "path")),
        "version": {"old": _version(old), "new": _version(new)},
        "files": {"added": added, "removed": removed, "changed": changed},
        "findings": {"new": appeared, "resolved": resolved,
                     "new_security": [f for f in appeared if is_security(f)]},
        "license": {"old": old_lic["license"], "new": new_lic["license"], "changed": old_lic != new_lic},
        "meaning": meaning_changes(old, new),
        "exception_files_changed": exception_files_touched(old, new),
    }


def _size(n: int) -> str:
    return f"{n:,} B"


def summary_lines(summary: dict) -> list[str]:
    """The summary as plain lines (outside text made visible), for the terminal and the PR body alike."""
    v = summary["version"]
    lines = [f"commit {str(summary['old_commit'])[:12]} -> {str(summary['new_commit'])[:12]}"]
    if v["old"] != v["new"]:
        lines.append(f"version {visible(str(v['old'] or 'none'))} -> {visible(str(v['new'] or 'none'))}")
    if summary["upstream_changed"]:
        lines.append("the upstream repository or folder changed")
    lic = summary["license"]
    if lic["changed"]:
        lines.append(f"licence {visible(str(lic['old']))} -> {visible(str(lic['new']))}"
                     + (" (the skill's own `license` field changed)" if lic["old"] == lic["new"] else ""))
    files = summary["files"]
    items = ([f"added {visible(f['path'])} ({_size(f['size'])})" for f in files["added"]]
             + [f"removed {visible(f['path'])} ({_size(f['size'])})" for f in files["removed"]]
             + [f"changed {visible(f['path'])} ({_size(f['old_size'])} -> {_size(f['new_size'])})"
                for f in files["changed"]])
    items += [meaning_change.describe(c, lambda v: visible(str(v)[:200])) for c in summary.get("meaning") or []]
    items += [f"changed {visible(p)}, which carries a reviewed security exception"
              for p in summary.get("exception_files_changed") or []]
    findings = summary["findings"]
    items += [f"new finding {visible(f.get('rule', ''))} in {visible(f.get('file') or '.')}: "
              f"{visible(str(f.get('message', ''))[:200])}" for f in findings["new"]]
    items += [f"resolved finding {visible(f.get('rule', ''))} in {visible(f.get('file') or '.')}"
              for f in findings["resolved"]]
    lines += items[:MAX_LISTED]
    if len(items) > MAX_LISTED:
        lines.append(f"... and {len(items) - MAX_LISTED} more")
    if not (files["added"] or files["removed"] or files["changed"]):
        lines.append("no file of the skill changed")
    return lines


def _version(data: dict) -> str | None:
    """The version registry.json lists: the upstream `version`, else the time version of the pin's date
    (`Pointer.version`), else None (an undated pin, which the build dates from the registry)."""
    from skillyard.format.timeversion import from_iso

    declared = (data.get("skill") or {}).get("version")
    committed = (data.get("upstream") or {}).get("committed_at")
    return declared or (from_iso(committed) if isinstance(committed, str) else None)
