"""`skillyard external add`: list a skill that lives in its own GitHub repository, by pointer."""

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
[tool.skillyard] holds upstream skills to this registry's house style instead. Any refusal writes nothing.

GitHub Enterprise and tests: SKILL_GITHUB_API_URL, SKILL_GITHUB_CODELOAD_URL and SKILL_GITHUB_RAW_URL, as for the
client. The token comes from $GITHUB_TOKEN, or the variable --token-env names; it is sent only to those hosts.

examples:
  skillyard external add github:obra/superpowers/skills/brainstorming
  skillyard external add github:acme/skills/pdf-tools@v1.2.0 --track 'v*'
  skillyard external add github:acme/tool@3f0c...e1 --name acme-tool --license MIT --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="external_command", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="write a pointer entry for github:OWNER/REPO/PATH[@REF]",
                         description="Write skills/<name>/source.yaml for the skill at github:OWNER/REPO/PATH[@REF].")
    add.add_argument("target", metavar="github:OWNER/REPO/PATH[@REF]", help="the upstream skill folder and ref")
    add.add_argument("--name", help="the skill's name in this registry (default: the upstream `name`)")
    add.add_argument("--track", metavar="REF",
                     help="the branch (or tag pattern, e.g. 'v*') a bump follows (default: REF when it is a branch "
                          "or tag, else the default branch)")
    add.add_argument("--license", metavar="SPDX", help="the licence, when neither the skill nor its repository says")
    add.add_argument("--token-env", metavar="VAR", help="environment variable holding a GitHub token "
                     "(default: GITHUB_TOKEN)")
    add.add_argument("--root", default=".", help="registry root holding pyproject.toml (default: .)")
    add.add_argument("--json", action="store_true", help="print what was written as JSON")


def _getter(token: str | None, hosts):
    """GET through the client's bounded HTTP layer; the token only to the configured GitHub hosts."""
    from skillyard.client import http

    allowed = {http.origin(hosts.api_url), http.origin(hosts.codeload_url), http.origin(hosts.raw_url)}

    def get(url: str, *, accept: str | None = None, max_bytes: int) -> bytes:
        send = token if http.origin(url) in allowed else None
        return http.fetch(url, token=send, accept=accept, max_bytes=max_bytes).body

    return get


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
    result = add(args.target, config, _getter(os.environ.get(variable) or None, hosts), hosts, name=args.name,
                 track=args.track, licence=args.license)
    if args.json:
        print_json(result)
        return 0
    say(f"wrote {visible(result['pointer'])}: {visible(result['repository'])}/{visible(result['path'])} at "
        f"{result['commit'][:12]} (tracks {visible(result['tracks'])}, {result['files']} files, "
        f"licence {visible(result['license'])})")
    for warning in result["warnings"]:
        say(f"  {warning['severity']}: {visible(warning.get('file') or '.')}: {visible(warning['message'])}")
    return 0
