"""`skillyard site build|serve`: the registry's searchable static website."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "site"
HELP = "build or preview the registry's static website (mkdocs-material)"
DESCRIPTION = """Build the searchable website from registry.json and the skill folders.

Pages are generated into .site-build/docs, then `mkdocs build` writes the site (default _site/), together with
search.json, registry.json, index.json and /.well-known/agent-skills/ for other clients: every skill as one
deterministic <name>.tar.gz in a discovery index (schema 0.2.0, what `npx skills` reads), HTML or JS files
included, since an archive never runs in a browser. Only skills whose every file is inert in a browser (text,
images, fonts, archives) also have their files served one by one (the pages link them); the others link their files
at the pinned commit instead. A skill served in no form is listed as a note; a file the site cannot publish never
fails the build.

--out is a real folder holding the whole site and nothing else (no build state), for a static host to serve or
for `cp -a`/rsync/an upload to copy as it is. A rebuild updates a spare copy in the work folder (rewriting only the
files that changed) and exchanges it with --out in one atomic step (Linux; elsewhere the site is written whole and
renamed over --out), so the site being served is never half-written. A non-empty folder this command did not
build is refused; the symlink an older release left at --out is replaced by the folder.

Pointer skills (skills/<name>/source.yaml) live in their own repositories. With --fetch-upstream (the publish
workflow passes it) the build downloads each pinned commit's tarball once, and a pointer skill whose licence allows
redistribution (site/pages/security.md) and whose every file matches its pinned size and sha256 gets its SKILL.md
on its page and its files under /.well-known/agent-skills/; any other page says why it shows no body. Without the
flag the build needs no network and those pages say the content was not fetched. SKILL_GITHUB_CODELOAD_URL points
the download at GitHub Enterprise (or a test server); a token in $GITHUB_TOKEN is sent only there.

For a static registry (registry.json's files relative to it) the site also serves each skill's files where registry.json
points, byte for byte, so the one folder serves both `skill source add URL/registry.json` and `npx skills add URL`.
With --static-host, a registry on a commit-pinned host (github, github-enterprise) gets the same: the served registry.json points at
the files served beside it rather than the code host (a note says so; the repository's own file is unchanged).

examples:
  skillyard build && skillyard site build
  skillyard site build --out public --registry registry.json --root .
  skillyard site build --fetch-upstream --out _site
  skillyard site build --static-host --out public && python -m http.server --directory public
  skillyard site serve --port 8000
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="site_command", metavar="ACTION", required=True)
    build = sub.add_parser("build", help="build the site into --out (default _site/)",
                           description="Build the site into --out; the old output is replaced only on success.")
    serve = sub.add_parser("serve", help="build the site, then serve it on 127.0.0.1",
                           description="Build the site, then serve it on http://127.0.0.1:PORT/ until Ctrl-C.")
    for child in (build, serve):
        child.add_argument("--root", type=Path, default=Path("."),
                           help="repository root holding the skill folders (default: current folder)")
        child.add_argument("--registry", type=Path, default=None,
                           help="registry.json to publish (default: ROOT/registry.json)")
        child.add_argument("--config", type=Path, default=None,
                           help="mkdocs.yml to use (default: ROOT/mkdocs.yml, else ./mkdocs.yml, else the default shipped in the package)")
        child.add_argument("--work-dir", type=Path, default=None,
                           help="where generated pages go (default: ROOT/.site-build)")
        child.add_argument("--site-url", default=None, help="override site_url from mkdocs.yml")
        child.add_argument("--no-cache", action="store_true",
                           help="render every skill page again instead of reusing WORK_DIR/cache (output is the same)")
        child.add_argument("--fetch-upstream", action="store_true",
                           help="download the pointer skills' pinned upstream content (network), check every file's "
                                "sha256, and show or serve it where the licence allows")
        child.add_argument("--upstream-deadline", type=float, default=None, metavar="SECONDS",
                           help="time limit for all upstream downloads of the build (default 300)")
        child.add_argument("--json", action="store_true", help="print a machine-readable summary")
    build.add_argument("--out", type=Path, default=None, help="output folder (default: ROOT/_site)")
    build.add_argument("--strict", action="store_true", help="fail when mkdocs reports warnings")
    build.add_argument("--static-host", action="store_true",
                       help="serve the registry from --out: its registry.json points at the skill files served "
                            "beside it (a commit-pinned host's too), so `skill source add SITE/registry.json` and "
                            "`npx skills add SITE` install from the one folder")
    serve.add_argument("--out", type=Path, default=None, help="output folder (default: ROOT/_site)")
    serve.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000; 0 picks one)")
    serve.add_argument("--no-build", action="store_true", help="serve the existing output without rebuilding")


def _fetcher(args):
    """The upstream fetcher for --fetch-upstream: the client's bounded HTTP layer, GitHub's codeload host (or
    SKILL_GITHUB_CODELOAD_URL), a token from $GITHUB_TOKEN sent only there."""
    import os

    from skillyard.client import http
    from skillyard.client.config import load_config
    from skillyard.errors import UsageError
    from skillyard.site.upstream import DEFAULT_DEADLINE, Fetcher

    deadline = DEFAULT_DEADLINE if args.upstream_deadline is None else args.upstream_deadline
    if not 0 < deadline <= 3600:
        raise UsageError(f"--upstream-deadline {deadline:g}: not between 0 and 3600 seconds",
                         "Pass a number of seconds such as 300.")
    codeload = load_config().github_codeload_url
    token = os.environ.get("GITHUB_TOKEN") or None

    def get(url: str, *, accept: str | None, max_bytes: int, deadline: float) -> bytes:
        send = token if http.origin(url) == http.origin(codeload) else None
        return http.fetch(url, token=send, accept=accept, max_bytes=max_bytes, deadline=deadline).body

    return Fetcher(get=get, codeload_url=codeload, deadline=deadline)


def _build(args):
    from skillyard.site.builder import build_site

    root = args.root
    return build_site(args.registry or root / "registry.json", root, args.out or root / "_site",
                      config=args.config, work_dir=args.work_dir, site_url=args.site_url,
                      use_cache=not args.no_cache, fetcher=_fetcher(args) if args.fetch_upstream else None,
                      static_host=getattr(args, "static_host", False))


def _summary(result) -> dict:
    return {"ok": True, "out": str(result.out), "skills": result.skills, "pages": result.pages,
            "search_bytes": result.search_bytes,
            "cached_pages": result.cached_pages, "files_written": result.files_written, "files_kept": result.files_kept,
            "seconds": {k: round(v, 3) for k, v in result.seconds.items()},
            "warnings": result.warnings, "notes": result.notes, "upstream": result.upstream}


def run(args) -> int:
    from skillyard.cli.common import print_json
    from skillyard.errors import SkillyardError

    summary: dict = {}
    if args.site_command == "serve" and args.no_build:
        out = (args.out or args.root / "_site").absolute()  # not resolved: a rebuild switches what it links to
        if not (out / "index.html").is_file():
            raise SkillyardError(f"{out}: no built site to serve", "Run `skillyard site build` first.")
        summary = {"ok": True, "out": str(out)}
    else:
        result = _build(args)
        out = result.out
        summary = _summary(result)
        if args.json:
            if args.site_command == "build":
                print_json(summary)
        else:
            print(f"built {result.skills} skills, {result.pages} pages into {result.out} "
                  f"in {result.seconds['total']:.1f}s (search data {result.search_bytes} bytes)")
            if result.upstream:  # pointer skills: how many show their upstream content, and why the others do not
                print("pointer skills: " + ", ".join(f"{n} {state}" for state, n in result.upstream.items()))
        from skillyard.format.safety import visible

        for note in result.notes:  # one skill's problem, worked around: the site is still complete for the rest
            print(f"note: {visible(note, one_line=True)}", file=sys.stderr)  # notes and warnings quote skills
        for warning in result.warnings:
            print(f"warning: mkdocs: {visible(warning, one_line=True)}", file=sys.stderr)
        if args.site_command == "build" and args.strict and result.warnings:
            raise SkillyardError(f"mkdocs reported {len(result.warnings)} warning(s) and --strict is on",
                                 "Fix the warnings printed above.")
    if args.site_command == "serve":
        from skillyard.site.serve import serve

        # with --json, stdout holds one JSON object (the summary and the URL, once the server listens); the
        # "serving" line and the request log go to stderr
        serve(out, args.port, ready=(lambda url: print_json({**summary, "url": url})) if args.json else None)
    return 0
