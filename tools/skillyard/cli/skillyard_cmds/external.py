"""`skillyard external add|verify|bump|refresh-findings`: list skills that live in their own GitHub repositories, by pointer; check and
keep them current."""

from __future__ import annotations

import argparse

NAME = "external"
HELP = "list skills that live in their own GitHub repositories (pointer entries)"
DESCRIPTION = """List a skill that lives in its own repository without copying it: `add` writes
skills/<name>/source.yaml, which pins the upstream commit and records every file's size and sha256 and the metadata
registry.json needs. validate, build and site build then need no network for it, and `skill install NAME` fetches
the files from the upstream repository at that commit, checking each one.

add resolves REF (a branch, tag or commit; default: the default branch) to a commit through the GitHub API, reads
the tarball at that commit with the client's bounded reader, and checks the folder against the open standard
(lenient mode: what the reference validator accepts) plus the full security scan; `external_mode = "strict"` in
[tool.skillyard] holds upstream skills to this registry's house style instead. Any refusal writes nothing; a
size refusal names the limit, the largest files and the setting to raise (max_file_bytes, max_total_bytes,
max_files). The licence is looked for where authors put it: the skill's frontmatter `license` (a file it names,
such as "Complete terms in LICENSE.txt", is read), a LICENSE*/COPYING* file in the skill folder, then the
repository's; add says where it came from. With none it can determine, the skill is listed as NOASSERTION with a
warning (the site never redistributes its content; installs fetch it from upstream), unless
external_require_license = true. --license records one you have checked, only when upstream names none at all
(`license_source: registry`, shown on the site as set by this registry); it never overrides what upstream states.
A bump records the licence upstream names at the new commit; one upstream withdrew is never carried forward.

GitHub Enterprise and tests: SKILL_GITHUB_API_URL, SKILL_GITHUB_CODELOAD_URL and SKILL_GITHUB_RAW_URL, as for the
client. The token comes from $GITHUB_TOKEN, or the variable --token-env names; it is sent only to those hosts.

bump moves each pin to the newest commit on its tracked ref that changed the skill's folder (the newest tag for
a tag pattern), re-checked exactly as add checks, and prints what changed. It never moves a pin backwards or to a
commit the pin does not lead to (a force-push refuses that pointer). Conditional requests throughout: when no
tracked head moved, a run costs one request per repository. Exit 0 when every pointer is current or bumped.

examples:
  skillyard external add github:obra/superpowers/skills/brainstorming
  skillyard external add github:acme/skills/pdf-tools@v1.2.0 --track 'v*'
  skillyard external add github:acme/tool@3f0c...e1 --name acme-tool --license MIT --json
  skillyard external bump --dry-run
  skillyard external bump brainstorming --json
  skillyard external refresh-findings skill-scanner
"""


def _allowance(value: str) -> dict:
    """`RULE:FILE:REASON` as a security exception entry (the reason may hold colons)."""
    from skillyard.format.exceptions import EXCEPTABLE_RULES, MAX_REASON

    rule, _, rest = value.partition(":")
    file, _, reason = rest.partition(":")
    if rule not in EXCEPTABLE_RULES:
        raise argparse.ArgumentTypeError(f"{rule!r} is not a security rule an exception may allow (one of: "
                                         f"{', '.join(sorted(EXCEPTABLE_RULES))})")
    if not file or not reason.strip() or len(reason.strip()) > MAX_REASON:
        raise argparse.ArgumentTypeError(f"write RULE:FILE:REASON, with the file inside the skill folder and a "
                                         f"reason of 1 to {MAX_REASON} characters")
    return {"rule": rule, "file": file, "reason": reason.strip()}


def _unique(allowances: list[dict]) -> list[dict]:
    from skillyard.errors import UsageError

    seen = set()
    for entry in allowances:
        key = (entry["rule"], entry["file"])
        if key in seen:
            raise UsageError(f"--allow names {entry['rule']} in {entry['file']} twice", "Give each rule and file once.")
        seen.add(key)
    return allowances


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="external_command", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="write a pointer entry for github:OWNER/REPO/PATH[@REF]",
                         description="Write skills/<name>/source.yaml for the skill at github:OWNER/REPO/PATH[@REF].")
    add.add_argument("target", metavar="github:OWNER/REPO/PATH[@REF]", help="the upstream skill folder and ref")
    add.add_argument("--name", help="the skill's name in this registry (default: the upstream `name`)")
    add.add_argument("--track", metavar="REF",
                     help="the branch (or tag pattern, e.g. 'v*') a bump follows (default: REF when it is a branch "
                          "or tag, else the default branch)")
    add.add_argument("--license", metavar="SPDX", help="the licence (SPDX) you have checked, for a skill whose upstream "
                     "names none (no frontmatter `license`, no LICENSE*/COPYING* file in its folder or at the root, "
                     "none in GitHub's API); recorded as `license_source: registry`. Refused when upstream names one")
    add.add_argument("--allow", action="append", default=[], metavar="RULE:FILE:REASON", type=_allowance,
                     help="a reviewed security exception for a dual-use skill (one that quotes attacks to teach "
                          "them): the finding RULE in FILE is shown but does not block; repeatable. Recorded in "
                          "registry.security_exceptions; a PR that adds or changes one is never automerged")
    add.add_argument("--token-env", metavar="VAR", help="environment variable holding a GitHub token "
                     "(default: GITHUB_TOKEN)")
    add.add_argument("--root", default=".", help="registry root holding pyproject.toml (default: .)")
    add.add_argument("--json", action="store_true", help="print what was written as JSON")
    _verify_arguments(sub)
    _add_bump_arguments(sub)
    from skillyard.cli.skillyard_cmds import _external_refresh

    _external_refresh.add_parser(sub)


def _add_bump_arguments(sub) -> None:
    bump = sub.add_parser("bump", help="move pointers to the newest upstream commit that changed their folder",
                          description="Move each pointer (or the NAMEs) to the newest commit on its tracked ref that "
                                      "changed its folder, re-checked as `add` checks it; print what changed.")
    bump.add_argument("names", nargs="*", metavar="NAME",
                      help="pointer skills to bump, as name or group/name (default: all, at any depth)")
    bump.add_argument("--dry-run", action="store_true", help="check and summarise, write nothing")
    bump.add_argument("--token-env", metavar="VAR", help="environment variable holding a GitHub token "
                      "(default: GITHUB_TOKEN)")
    bump.add_argument("--root", default=".", help="registry root holding pyproject.toml (default: .)")
    bump.add_argument("--json", action="store_true", help="print the results (with each change summary) as JSON")


def _getter(token: str | None, hosts, client=None):
    """GET through the client's bounded HTTP layer; the token only to the configured GitHub hosts."""
    from skillyard.client import http

    allowed = {http.origin(hosts.api_url), http.origin(hosts.codeload_url), http.origin(hosts.raw_url)}

    def get(url: str, *, accept: str | None = None, max_bytes: int) -> bytes:
        send = token if http.origin(url) in allowed else None
        return http.fetch(url, token=send, accept=accept, max_bytes=max_bytes, **http.settings(client)).body

    return get


def _fetcher(token: str | None, hosts, client=None):
    """Conditional GET (`etag` -> If-None-Match) for bump: (not_modified, body, etag)."""
    from skillyard.client import http

    allowed = {http.origin(hosts.api_url), http.origin(hosts.codeload_url), http.origin(hosts.raw_url)}

    def fetch(url: str, *, accept: str | None = None, max_bytes: int, etag: str | None = None):
        send = token if http.origin(url) in allowed else None
        response = http.fetch(url, token=send, accept=accept, max_bytes=max_bytes, etag=etag, **http.settings(client))
        return response.not_modified, response.body, response.etag

    return fetch


def _run_bump(args, token: str | None, hosts, config, client=None) -> int:
    from skillyard.cli.common import print_json, say, visible
    from skillyard.format.pointer_change import summary_lines
    from skillyard.registry.external_bump import bump

    outcome = bump(config, _fetcher(token, hosts, client), hosts, names=args.names, dry_run=args.dry_run)
    if args.json:
        print_json(outcome)
    else:
        for result in outcome["results"]:
            say(f"{visible(result['name'])}: {result['status']}: {visible(result['message'])}")
            for line in summary_lines(result["summary"]) if "summary" in result else ():
                say(f"  {line}")
    return 0 if outcome["ok"] else 1


def run(args) -> int:
    import os
    from pathlib import Path

    from skillyard.cli.common import print_json, say, visible
    from skillyard.client.config import load_config
    from skillyard.errors import UsageError
    from skillyard.registry.config import load_registry_config
    from skillyard.registry.external import Hosts, add

    variable = args.token_env or "GITHUB_TOKEN"
    if args.token_env and not os.environ.get(variable):
        raise UsageError(f"--token-env {variable}: that environment variable is not set",
                         f"export {variable}=... first, or leave out --token-env.")
    client = load_config()
    hosts = Hosts(client.github_api_url, client.github_codeload_url, client.github_raw_url)
    config = load_registry_config(Path(args.root))
    if args.external_command == "verify":
        return _run_verify(args, config, _getter(os.environ.get(variable) or None, hosts, client), hosts)
    if args.external_command == "refresh-findings":
        from skillyard.cli.skillyard_cmds import _external_refresh

        return _external_refresh.run(args, config, _getter(os.environ.get(variable) or None, hosts, client), hosts)
    if args.external_command == "bump":
        return _run_bump(args, os.environ.get(variable) or None, hosts, config, client)
    result = add(args.target, config, _getter(os.environ.get(variable) or None, hosts), hosts, name=args.name,
                 track=args.track, licence=args.license, allowed=_unique(args.allow))
    if args.json:
        print_json(result)
        return 0
    source = result.get("license_source")
    said = ("set by this registry (--license; upstream names none)" if source == "registry"
            else f"from {visible(source or 'the lookup')}")
    say(f"wrote {visible(result['pointer'])}: {visible(result['repository'])}/{visible(result['path'])} at "
        f"{result['commit'][:12]} (tracks {visible(result['tracks'])}, {result['files']} files, "
        f"licence {visible(result['license'])} {said})")
    for warning in result["warnings"]:
        say(f"  {warning['severity']}: {visible(warning.get('file') or '.')}: {visible(warning['message'])}")
    return 0


# ---- verify ---------------------------------------------------------------------------------------------------

VERIFY_DESCRIPTION = """Re-fetch each pointer's pinned commit (the tarball, through the same bounded reader as add)
and prove that the recorded facts still hold: every file's path, size, sha256 and executable bit, the upstream
metadata, the licence (looked up exactly as add does: a `license` that differs from what upstream names, or a
registry-side one while upstream now names a licence, fails naming skills/<name>/source.yaml and the fix), and
that the folder still passes the checks add applies (the open standard plus the full security scan, or
external_mode = "strict"). Every file that differs, is missing or is extra is named. A hostile or unreachable
upstream fails that pointer with the reason; the others are still checked.

The findings a pointer records are those of the Skillyard that wrote it. When today's rules find other ones in
the same bytes, that is reported as a warning (`findings_changed` in --json) with the command that rewrites them,
`skillyard external refresh-findings NAME`, for a maintainer to open as a PR; it fails nothing by itself. A new
finding that blocks the unchanged bytes is different: the pointer is BLOCKED (not verified, not recorded).
Exit 0: every pointer verified; 1: a pointer's bytes or metadata differ, or it could not be checked; 3: nothing
differs, but today's rules block at least one pointer.

--record writes verification.checked_at (UTC) into each pointer that passed, atomically, changing nothing else.
--prefix takes the pointers whose names start with the given characters, so a CI matrix can split thousands of
pointers into parallel jobs (e.g. --prefix 0-9a-f, --prefix g-p, --prefix q-z).

examples:
  skillyard external verify
  skillyard external verify brainstorming agents-md --json
  skillyard external verify --prefix a-f --record
"""


def _verify_arguments(sub) -> None:
    verify = sub.add_parser("verify", help="re-fetch pinned commits and check the recorded facts still hold",
                            description=VERIFY_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    verify.add_argument("names", nargs="*", metavar="NAME",
                        help="pointer entries to verify, as name or group/name (default: all, at any depth)")
    verify.add_argument("--prefix", metavar="RANGE", help="only names whose first character is in RANGE (a-f, 0-9a-c)")
    verify.add_argument("--record", action="store_true", help="write verification.checked_at into passing pointers")
    verify.add_argument("--token-env", metavar="VAR", help="environment variable holding a GitHub token "
                        "(default: GITHUB_TOKEN)")
    verify.add_argument("--root", default=".", help="registry root holding pyproject.toml (default: .)")
    verify.add_argument("--json", action="store_true", help="print per-pointer results and differences as JSON")


def _difference_line(d: dict) -> str:
    from functools import partial

    from skillyard.format.safety import visible

    visible = partial(visible, one_line=True)  # a value from upstream must not start a forged line
    if d["kind"] in ("missing", "extra"):
        return f"{d['kind']} file {visible(d['file'])}"
    if d["kind"] == "changed":
        return f"changed file {visible(d['file'])}: {d['field']} {visible(str(d['recorded']))} -> " \
               f"{visible(str(d['found']))}"
    if d["kind"] == "metadata":
        return f"{d['field']} changed: {visible(str(d['recorded']))} -> {visible(str(d['found']))}"
    if d["kind"] == "licence":
        return (f"{visible(d['file'])}: `license` recorded {visible(str(d['recorded']))}, upstream names "
                f"{visible(d['upstream'])}; fix: {visible(d['fix'])}")
    return f"{d['kind']}: {visible(d['rule'])} {visible(d['file'] or '.')}: {visible(d['message'])}"


def _print_result(r) -> None:
    from skillyard.cli.common import say
    from skillyard.format.safety import visible

    at = f" at {r.commit[:12]}" if r.commit else ""
    if r.ok:
        say(f"ok      {r.name}{at}" + (f" (recorded checked_at {r.checked_at})" if r.recorded else ""))
    elif r.status == "blocked":
        say(f"BLOCKED {r.name}{at}: the files are the ones recorded, but today's rules block them "
            f"({len(r.blocking)} blocking finding(s)); a maintainer decides: a reviewed exception "
            "(`external add … --allow`) or removing the pointer")
        for f in r.blocking[:10]:
            say(f"        {visible(f['rule'])} {visible(f.get('file') or '.', one_line=True)}: "
                f"{visible(f['message'], one_line=True)}")
    else:
        say(f"FAILED  {r.name}{at}" + (f": {visible(r.reason, one_line=True)}" if r.reason else ""))
    for d in r.differences[:50]:
        say(f"        {_difference_line(d)}")
    if len(r.differences) > 50:
        say(f"        (and {len(r.differences) - 50} more differences; --json lists them all)")
    if r.findings_changed and r.status != "failed":
        say(f"warning {r.name}: {len(r.findings_changed)} finding(s) differ from the recorded ones because the rules "
            f"changed (the files did not); refresh them with `{r.refresh}` and open a PR")
        for d in r.findings_changed[:20]:
            say(f"        {_difference_line(d)}")


def _run_verify(args, config, get, hosts) -> int:
    """Each pointer's lines as it finishes; on a terminal a progress counter (--json), in a CI log a progress line
    every 5% of a run of 50 or more pointers."""
    import sys
    from datetime import UTC, datetime

    from skillyard.cli.common import Progress, print_json, say
    from skillyard.errors import SkillyardError
    from skillyard.registry import external_verify as ev

    get = ev.remembering(get)
    shard = ev.parse_shard(args.prefix) if args.prefix is not None else None
    folders = ev.select(config, args.names, shard)
    results, failed = [], 0
    tty = sys.stderr.isatty()
    step = max(1, len(folders) // 20) if len(folders) >= 50 and not tty else 0
    with Progress("verifying pointers", len(folders), enabled=tty and args.json) as progress:
        for folder in folders:
            result = ev.verify_pointer(folder, config, get, hosts)
            if result.ok:
                result.checked_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            if result.ok and args.record:
                try:
                    ev.record_checked(folder, result.commit, result.checked_at)
                    result.recorded = True
                except SkillyardError as exc:
                    result.reason = exc.message
            results.append(result)
            failed += not result.ok
            progress.advance()
            if not args.json:
                _print_result(result)
            if step and (len(results) % step == 0 or len(results) == len(folders)):
                print(f"verify: {len(results)} of {len(folders)} pointers checked, {failed} failed", file=sys.stderr)
    blocked = sum(r.status == "blocked" for r in results)
    changed = [r.name for r in results if r.findings_changed and r.status != "failed"]
    failed -= blocked
    if args.json:
        print_json({"ok": not failed and not blocked, "checked": len(results), "failed": failed, "blocked": blocked,
                    "findings_changed": len(changed),
                    "refresh": f"skillyard external refresh-findings {' '.join(changed)}" if changed else None,
                    "pointers": [r.to_dict() for r in results]})
    else:
        say(f"{len(results) - failed - blocked} of {len(results)} pointers verified, {failed} failed"
            + (f", {blocked} blocked by today's rules" if blocked else "")
            + (f"; {len(changed)} with findings to refresh (`skillyard external refresh-findings "
               f"{' '.join(changed)}`)" if changed else "")
            if results else "no pointer entries to verify")
    return ev.EXIT_FAILED if failed else ev.EXIT_BLOCKED if blocked else 0
