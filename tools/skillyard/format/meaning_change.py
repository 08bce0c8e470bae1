"""What a new pin changes in a skill's meaning, beyond its bytes: two pointer documents in, a list of changes out.

A bump moves a pin to code no maintainer has read, so the PR body lists every change of what the skill says it is
and may do (name, description, capabilities, allowed tools, MCP dependencies, inputs, author and maintainers), and
the automerge rules (`bot/bump_rules.py`) take from `maintainer_reasons` the changes no bot may accept alone:
- a capability or an allowed tool that the old pin did not have (a widening; removing some is a narrowing, listed
  only), including a first `allowed_tools` list where there was none (pre-approving tools at all is wider);
- any change of `author` or `maintainers`: they decide who owns the skill's folder here.
`exception_files_touched` names the files that carry a reviewed security exception (an `allowed` finding, or an
entry of `registry.security_exceptions`) and whose bytes the new pin changes: the reviewed code is not there any more.
Pure: dicts in, lists out.
"""

from __future__ import annotations

# (field of the pointer's `skill` block, whether adding an entry widens what the skill may do)
SET_FIELDS = (("capabilities", True), ("allowed_tools", True), ("maintainers", False))
KEYED_FIELDS = (("mcp_deps", "tool"), ("inputs", "name"))
TEXT_FIELDS = ("name", "description", "author")
OWNER_FIELDS = frozenset({"author", "maintainers"})
WIDENING_FIELDS = frozenset(field for field, widens in SET_FIELDS if widens)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):  # a frontmatter string ("Read Grep") should never reach a pointer; read it as a list
        return value.replace(",", " ").split()
    return [str(v) for v in value] if isinstance(value, list) else []


def _keyed(value: object, key: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict):
            out.setdefault(str(item.get(key, "")), item)
    return out


def meaning_changes(old: dict, new: dict) -> list[dict]:
    """Each field whose meaning differs between pointer documents `old` and `new`, in a fixed order: `field`,
    `change` (`widened`, `narrowed` or `changed`), `needs_maintainer`, and `added`/`removed` (entries, or keys of
    MCP dependencies and inputs, with `changed` keys) or `old`/`new` (a text field's values)."""
    before, after = old.get("skill") or {}, new.get("skill") or {}
    out: list[dict] = []
    for field in TEXT_FIELDS:
        a, b = before.get(field), after.get(field)
        if a != b:
            out.append({"field": field, "change": "changed", "needs_maintainer": field in OWNER_FIELDS,
                        "old": None if a is None else str(a), "new": None if b is None else str(b)})
    for field, widens in SET_FIELDS:
        a, b = _strings(before.get(field)), _strings(after.get(field))
        added = sorted(set(b) - set(a))
        removed = sorted(set(a) - set(b))
        # no list at all pre-approves nothing; an empty list where there was none says the same
        first_list = field == "allowed_tools" and "allowed_tools" not in before and "allowed_tools" in after and \
            bool(b)
        if not (added or removed or first_list):
            continue
        change = "widened" if added or first_list else "narrowed"
        out.append({"field": field, "change": change if widens else "changed",
                    "needs_maintainer": (widens and change == "widened") or field in OWNER_FIELDS,
                    "added": added, "removed": removed})
    for field, key in KEYED_FIELDS:
        a, b = _keyed(before.get(field), key), _keyed(after.get(field), key)
        added, removed = sorted(set(b) - set(a)), sorted(set(a) - set(b))
        changed = sorted(k for k in set(a) & set(b) if a[k] != b[k])
        if added or removed or changed:
            out.append({"field": field, "change": "changed", "needs_maintainer": False, "added": added,
                        "removed": removed, "changed": changed})
    return out


def describe(change: dict, show, arrow: str = "->") -> str:
    """One change as a short phrase; `show` makes each upstream value safe to print (plain text or Markdown)."""
    field = change["field"]
    if "old" in change or "new" in change:
        return f"{field} {show(change.get('old') or 'none')} {arrow} {show(change.get('new') or 'none')}"
    parts = [f"{word} " + ", ".join(show(v) for v in change.get(key) or [])
             for key, word in (("added", "added"), ("removed", "removed"), ("changed", "changed"))
             if change.get(key)]
    return f"{field} {change['change']}" + (": " + "; ".join(parts) if parts else "")


def maintainer_reasons(changes: list[dict]) -> list[str]:
    """Why a maintainer must review: one sentence per change that widens what the skill may do or moves its owners."""
    reasons = []
    for change in changes:
        if not change.get("needs_maintainer"):
            continue
        field = change["field"]
        if field in WIDENING_FIELDS:
            added = ", ".join(f"`{v}`" for v in change.get("added") or []) or "a list where there was none"
            reasons.append(f"the new pin widens `{field}` ({added}): a maintainer reviews what a skill may do")
        else:
            reasons.append(f"the new pin changes `{field}` (who owns the skill's folder here): a maintainer reviews "
                           "a change of owners")
    return reasons


def _exception_files(data: dict) -> set[str]:
    files = {str(f.get("file") or "") for f in data.get("findings") or [] if isinstance(f, dict) and f.get("allowed")}
    entries = (data.get("registry") or {}).get("security_exceptions") or []
    files |= {str(e.get("file") or "") for e in entries if isinstance(e, dict)}
    return files - {""}


def exception_files_touched(old: dict, new: dict) -> list[str]:
    """The files that carry a reviewed security exception in `old` or `new` and whose bytes (or mode, or presence)
    differ between the two pins, sorted."""
    def facts(data: dict) -> dict[str, tuple]:
        return {str(f.get("path")): (f.get("sha256"), f.get("size"), bool(f.get("executable")))
                for f in data.get("files") or [] if isinstance(f, dict)}

    a, b = facts(old), facts(new)
    return sorted(path for path in _exception_files(old) | _exception_files(new) if a.get(path) != b.get(path))
