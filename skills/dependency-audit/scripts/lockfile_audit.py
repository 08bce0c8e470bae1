#!/usr/bin/env python3
"""Inventory dependencies from lockfiles and flag risks, offline and with the standard library only.

Reads: requirements*.txt, Pipfile.lock, poetry.lock, uv.lock, package-lock.json (v1-v3), yarn.lock (v1),
Cargo.lock, go.sum. Reports: every pinned package, unpinned or loosely pinned requirements, packages present in
several versions, and matches against an advisory list you supply as JSON (see references/advisories.md).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from pathlib import Path

SEVERITIES = ("low", "moderate", "high", "critical")
LOCKFILE_NAMES = {"Pipfile.lock", "poetry.lock", "uv.lock", "package-lock.json", "npm-shrinkwrap.json",
                  "yarn.lock", "Cargo.lock", "go.sum"}
REQ_LINE = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$")
SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", "target", "dist", "build"}


def normalise(ecosystem: str, name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower() if ecosystem == "pypi" else name


def parse_requirements(text: str) -> tuple[list[dict], list[dict]]:
    packages, loose = [], []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(" #")[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(("-r", "-c", "--", "-i")):
            continue
        if line.startswith("-e") or "://" in line or line.startswith((".", "/")):
            loose.append({"line": number, "requirement": line, "reason": "installed from a path or URL, not a pinned release"})
            continue
        match = REQ_LINE.match(line.split(";")[0].split("\\")[0])
        if not match:
            continue
        name, spec = match.group(1), match.group(3).strip()
        pinned = re.fullmatch(r"===?\s*([^\s,*]+)", spec)
        if pinned:
            packages.append({"name": name, "version": pinned.group(1), "line": number})
        else:
            loose.append({"line": number, "requirement": line,
                          "reason": "no version constraint" if not spec else f"not pinned to one version ({spec})"})
    return packages, loose


def parse_lockfile(path: Path) -> tuple[str, list[dict], list[dict]]:
    """(ecosystem, packages, loose requirements) for one file."""
    name = path.name
    text = path.read_text(encoding="utf-8-sig")
    if name.endswith(".txt"):
        packages, loose = parse_requirements(text)
        return "pypi", packages, loose
    if name == "Pipfile.lock":
        data = json.loads(text)
        out = []
        for group in ("default", "develop"):
            for pkg, info in sorted(data.get(group, {}).items()):
                version = str(info.get("version", "")).lstrip("=")
                out.append({"name": pkg, "version": version, "dev": group == "develop"})
        return "pypi", out, []
    if name in ("poetry.lock", "uv.lock", "Cargo.lock"):
        data = tomllib.loads(text)
        eco = "crates.io" if name == "Cargo.lock" else "pypi"
        return eco, [{"name": p["name"], "version": str(p.get("version", ""))} for p in data.get("package", [])], []
    if name in ("package-lock.json", "npm-shrinkwrap.json"):
        return "npm", _npm(json.loads(text)), []
    if name == "yarn.lock":
        return "npm", _yarn(text), []
    if name == "go.sum":
        seen = {}
        for line in text.splitlines():
            parts = line.split()
            if len(parts) >= 2:
                seen[(parts[0], parts[1].removesuffix("/go.mod"))] = True
        return "go", [{"name": m, "version": v} for m, v in seen], []
    raise ValueError(f"unsupported file {name}")


def _npm(data: dict) -> list[dict]:
    out = []
    if "packages" in data:  # lockfileVersion 2 and 3
        for key, info in sorted(data["packages"].items()):
            if not key or "version" not in info or info.get("link"):
                continue
            pkg = info.get("name") or key.rsplit("node_modules/", 1)[-1]
            out.append({"name": pkg, "version": info["version"], "dev": bool(info.get("dev"))})
        return out

    def walk(deps: dict) -> None:  # lockfileVersion 1: nested "dependencies"
        for pkg, info in sorted(deps.items()):
            out.append({"name": pkg, "version": info.get("version", ""), "dev": bool(info.get("dev"))})
            walk(info.get("dependencies", {}))

    walk(data.get("dependencies", {}))
    return out


def _yarn(text: str) -> list[dict]:
    out, names = [], []
    for line in text.splitlines():
        if line and not line.startswith((" ", "#")) and line.rstrip().endswith(":"):
            first = line.rstrip(":").split(",")[0].strip().strip('"')
            names = [first.rsplit("@", 1)[0] if not first.startswith("@") else "@" + first[1:].rsplit("@", 1)[0]]
        elif line.startswith("  version ") and names:
            out.append({"name": names[0], "version": line.split(None, 1)[1].strip().strip('"')})
            names = []
    return out


def version_key(version: str) -> tuple:
    """Order versions by numeric release parts; a pre-release (1.0.0-rc1, 1.0rc1) sorts before its release."""
    version = version.lstrip("vV=")
    release = re.match(r"^(\d+(?:\.\d+)*)(.*)$", version)
    if not release:
        return ((), 0, version)
    parts = tuple(int(p) for p in release.group(1).split("."))
    while len(parts) > 1 and parts[-1] == 0:
        parts = parts[:-1]
    rest = release.group(2).split("+")[0]
    return (parts, 0 if rest.strip(".-") else 1, rest)


def affected(version: str, advisory: dict) -> bool:
    if version in advisory.get("versions", []):
        return True
    if "fixed" not in advisory and "introduced" not in advisory:
        return False
    key = version_key(version)
    if "introduced" in advisory and key < version_key(str(advisory["introduced"])):
        return False
    return "fixed" not in advisory or key < version_key(str(advisory["fixed"]))


def audit(paths: list[Path], advisories: list[dict], min_severity: str) -> dict:
    files, packages, loose, errors = [], [], [], []
    for path in paths:
        try:
            ecosystem, found, unpinned = parse_lockfile(path)
        except (OSError, ValueError, KeyError, TypeError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            errors.append({"file": str(path), "error": f"{type(exc).__name__}: {exc}"})
            continue
        files.append({"file": str(path), "ecosystem": ecosystem, "packages": len(found)})
        for pkg in found:
            packages.append({"ecosystem": ecosystem, "file": str(path), **pkg})
        loose += [{"file": str(path), **item} for item in unpinned]
    versions: dict[tuple, set] = {}
    for pkg in packages:
        versions.setdefault((pkg["ecosystem"], normalise(pkg["ecosystem"], pkg["name"])), set()).add(pkg["version"])
    multiple = [{"ecosystem": e, "name": n, "versions": sorted(v, key=version_key)}
                for (e, n), v in sorted(versions.items()) if len(v) > 1]
    threshold = SEVERITIES.index(min_severity)
    vulnerable = []
    for adv in advisories:
        severity = str(adv.get("severity", "moderate")).lower()
        if severity in SEVERITIES and SEVERITIES.index(severity) < threshold:
            continue
        eco = str(adv.get("ecosystem", "")).lower()
        for (e, n), found_versions in sorted(versions.items()):
            if (not eco or eco == e.lower()) and n == normalise(e, str(adv.get("package", ""))):
                for version in sorted(found_versions, key=version_key):
                    if affected(version, adv):
                        vulnerable.append({"ecosystem": e, "name": n, "version": version, "id": adv.get("id", ""),
                                           "severity": severity, "fixed": adv.get("fixed"),
                                           "summary": adv.get("summary", "")})
    return {"files": files, "errors": errors, "package_count": len(packages), "packages": packages,
            "unpinned": loose, "multiple_versions": multiple, "vulnerable": vulnerable}


def discover(root: Path) -> list[Path]:
    found = []
    for path in sorted(root.rglob("*")):
        if any(part in SKIP_DIRS for part in path.relative_to(root).parts[:-1]) or not path.is_file():
            continue
        if path.name in LOCKFILE_NAMES or re.fullmatch(r"requirements.*\.txt", path.name):
            found.append(path)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Inventory lockfiles and flag unpinned, duplicated and advised-against dependencies.",
                                     epilog="example: lockfile_audit.py . --advisories advisories.json --fail-on high")
    parser.add_argument("paths", nargs="*", default=["."], help="lockfiles or folders to search (default .)")
    parser.add_argument("--advisories", help="JSON file: a list of {ecosystem, package, introduced?, fixed?, versions?, id, severity, summary}")
    parser.add_argument("--min-severity", choices=SEVERITIES, default="low", help="ignore advisories below this")
    parser.add_argument("--fail-on", choices=("never", "unpinned", *SEVERITIES), default="low",
                        help="exit 1 when a vulnerable package at or above this severity is found (or any unpinned requirement); default low")
    parser.add_argument("--json", action="store_true", help="print the full JSON report")
    args = parser.parse_args(argv)
    paths: list[Path] = []
    for raw in args.paths:
        path = Path(raw)
        if not path.exists():
            print(f"error: {raw} does not exist", file=sys.stderr)
            return 2
        paths += discover(path) if path.is_dir() else [path]
    advisories = []
    if args.advisories:
        try:
            advisories = json.loads(Path(args.advisories).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            print(f"error: cannot use advisories file {args.advisories}: {exc}", file=sys.stderr)
            return 2
        if not isinstance(advisories, list) or not all(isinstance(a, dict) for a in advisories):
            print(f"error: {args.advisories} must hold a JSON list of advisory objects", file=sys.stderr)
            return 2
    report = audit(paths, advisories, args.min_severity)
    if args.json:
        json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(f"{report['package_count']} packages in {len(report['files'])} file(s)")
        for f in report["files"]:
            print(f"  {f['file']}: {f['packages']} {f['ecosystem']} packages")
        for e in report["errors"]:
            print(f"ERROR      {e['file']}: {e['error']}")
        for v in report["vulnerable"]:
            fix = f", fixed in {v['fixed']}" if v.get("fixed") else ""
            print(f"VULNERABLE {v['name']} {v['version']} ({v['ecosystem']}): {v['id']} [{v['severity']}]{fix} {v['summary']}".rstrip())
        for u in report["unpinned"]:
            print(f"UNPINNED   {u['file']}:{u['line']}: {u['requirement']} - {u['reason']}")
        for m in report["multiple_versions"]:
            print(f"MULTIPLE   {m['name']} ({m['ecosystem']}): {', '.join(m['versions'])}")
    if report["errors"]:
        return 2
    if args.fail_on == "never":
        return 0
    if args.fail_on == "unpinned":
        return 1 if report["unpinned"] or report["vulnerable"] else 0
    level = SEVERITIES.index(args.fail_on)
    return 1 if any(SEVERITIES.index(v["severity"]) >= level for v in report["vulnerable"]
                    if v["severity"] in SEVERITIES) else 0


if __name__ == "__main__":
    sys.exit(main())
