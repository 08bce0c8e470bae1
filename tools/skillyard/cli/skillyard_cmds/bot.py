"""`skillyard bot report|automerge|open-bump-prs|record-verification`: the registry's PR bot (run by
.github/workflows/pr-bot.yml, automerge.yml, external-bump.yml and publish.yml)."""

from __future__ import annotations

NAME = "bot"
HELP = ("Comment on, label and automerge skill pull requests, record verified pins at merge (GitHub API; token "
        "from $GITHUB_TOKEN).")
DESCRIPTION = """\
The registry's pull-request bot. It never runs code from the PR: `report` reads the JSON report that the
read-only validate workflow uploaded, treats it as hostile (size cap, JSON Schema, plain paths, matched against
the PR's files as the API lists them), then keeps ONE sticky comment per PR up to date and sets the labels
new-skill, skill-update, invalid, tooling, needs-maintainer and security-finding.

`automerge` merges a PR into the default branch only when the registry's own validate workflow succeeded on the
head commit (a job of the workflow named by `validate_check` in [tool.skillyard], default `validate`; no other
check stands in for it) and the report that run uploaded, downloaded and checked as hostile, records that commit
and holds no unacknowledged security finding (a reviewed exception from skill.yaml `security_exceptions` on the
default branch is the only acknowledgement; labels do not count). It also needs every other check green, every
path it touches (both names of a rename) inside skills its author already owns (author/maintainers in
registry.json on the default branch) or new skills (the labelling maintainer's approval below is their review;
their skill.yaml names their owners), no skill removed, no `security_exceptions` added or changed, no
approval written by hand into a pointer's `verification` block (`verified: true`, `approved_*`), no review
requesting changes, no blocking label (invalid, needs-maintainer, security-finding, in any letter case),
and a maintainer with write access who added the `automerge` label and approved the current head commit (an
approval on an older commit withdraws the label). When it cannot merge yet, it says why in one sticky PR
comment; it retries when the validate and ci runs finish. The rules: site/pages/security.md.

A bump PR (branch `bump/<name>` of this repository, opened by `open-bump-prs`) follows its own rules instead:
it merges with no maintainer only when it changes just that pointer's source.yaml and only the pin (commit, files,
upstream metadata, findings; verification reset to unverified), the upstream repository, folder, tracked ref and
licence are unchanged, no new security finding appears, the skill's source.yaml on the default branch says
`registry: {auto_bump: true}`, and the validate run and every other check are green. Anything else waits for a
maintainer, and the sticky comment says why.

`open-bump-prs` turns the results of `skillyard external bump --json` (run in the same checkout) into one PR per
bumped skill on branch `bump/<name>`, with the change summary as its body; an open bump PR is refreshed.

`record-verification` runs after a merge, on the default branch's full-history checkout (the publish workflow):
for every pointer (a `source.yaml` under the skills folder) the merged PR added or changed, as git shows the
merge (never the API's file list, which stops at 3,000 files), it writes the `verification` block from the API's
facts alone. A pin the PR set is `verified: true` (with approved_by, approved_in, approved_at) only when a
maintainer with write, maintain or admin permission, not the PR's author and not a bot, approved the merged head
commit and that approval still stands; otherwise `verified: false`. A pointer whose pin the PR left alone keeps
the approval it had before the PR, whatever the PR wrote there. With --all it then re-proves every `verified:
true` block in the checkout from the API and git, and rewrites each one it cannot prove to `verified: false`. No
history (a shallow clone, a missing commit), a git answer that disagrees with GitHub's count of changed files,
or an API error: exit 1, nothing written.

The PR is found from the workflow run (--run-id: the run's own pull-request data, else its head repository,
branch and SHA), or from --pr; when two open PRs fit, the bot does nothing.

examples:
  GITHUB_TOKEN=... skillyard bot report --repo skillyard/registry --run-id "$RUN_ID" --artifact report.json
  GITHUB_TOKEN=... skillyard bot automerge --repo skillyard/registry --pr 42 --dry-run --json
  skillyard external bump --json > bump.json
  GITHUB_TOKEN=... skillyard bot open-bump-prs --repo skillyard/registry --results bump.json
  GITHUB_TOKEN=... skillyard bot record-verification --repo skillyard/registry --commit "$GITHUB_SHA" --all
"""


def _common(parser) -> None:
    parser.add_argument("--repo", required=True, metavar="OWNER/NAME", help="The registry repository.")
    parser.add_argument("--api-url", default=None, metavar="URL",
                        help="GitHub API root (GitHub Enterprise: https://HOST/api/v3). Default: $GITHUB_API_URL "
                             "or https://api.github.com.")
    parser.add_argument("--registry", default=None, metavar="FILE",
                        help="Use this registry.json for ownership instead of the one on the default branch.")
    parser.add_argument("--skills-dir", default="skills", metavar="DIR",
                        help="The registry's skill folder, directly under the repository root (default: skills; "
                             "the same as `skills_dir` in its settings).")
    parser.add_argument("--json", action="store_true", help="Print the outcome as JSON.")


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="bot_command", metavar="ACTION", required=True)
    report = sub.add_parser("report", help="Post/refresh the sticky report comment and the labels of a PR.")
    _common(report)
    report.add_argument("--pr", type=int, default=None, metavar="N", help="The PR number.")
    report.add_argument("--run-id", type=int, default=None, metavar="ID",
                        help="The validate workflow run; its PR is read from the API.")
    report.add_argument("--head-sha", default=None, metavar="SHA",
                        help="The commit the validate run checked; the PR's head must be this commit. Alone, "
                             "the one open PR with this head is used (two such PRs: nothing is done).")
    report.add_argument("--artifact", required=True, metavar="FILE", help="The validate report (report.json).")
    report.add_argument("--max-bytes", type=int, default=None, metavar="N",
                        help="Refuse artifacts larger than this (default 512 KiB).")
    report.add_argument("--bot-login", default=None, metavar="LOGIN",
                        help="The login whose comment is the sticky one (default: the token's user, else "
                             "github-actions[bot]).")
    merge = sub.add_parser("automerge", help="Merge a PR if the automerge rules allow it.")
    _common(merge)
    target = merge.add_mutually_exclusive_group(required=True)
    target.add_argument("--pr", type=int, metavar="N", help="The PR number.")
    target.add_argument("--head-sha", metavar="SHA", help="The one open PR whose head is this commit.")
    target.add_argument("--run-id", type=int, metavar="ID",
                        help="The PR a completed workflow run checked (its pull-request data, else its head).")
    merge.add_argument("--method", choices=["merge", "squash", "rebase"], default="squash")
    merge.add_argument("--dry-run", action="store_true", help="Decide and print, change nothing.")
    merge.add_argument("--bot-login", default=None, metavar="LOGIN",
                       help="The login whose automerge comment is the sticky one (default as for report).")
    merge.add_argument("--root", default=".", metavar="DIR",
                       help="The registry checkout (the default branch) whose settings name the required check "
                            "(`validate_check` in [tool.skillyard], default `validate`). Default: .")
    merge.add_argument("--bump-author", default=None, metavar="LOGIN",
                       help="Who opens bump PRs (default: `bump_author` in [tool.skillyard], else "
                            "github-actions[bot]; a GitHub App's `<app>[bot]` when the bump workflow uses an app "
                            "token). Bump PRs by anyone else are not automerged.")
    bump = sub.add_parser("open-bump-prs", help="Open (or refresh) one PR per skill `external bump` bumped.")
    _common(bump)
    bump.add_argument("--results", required=True, metavar="FILE",
                      help="The output of `skillyard external bump --json` run in --root.")
    bump.add_argument("--root", default=".", metavar="DIR", help="The registry checkout bump wrote into. Default: .")
    verify = sub.add_parser("record-verification",
                            help="After a merge: write verified pins from the merged PR's maintainer approval.",
                            description="For every pointer (source.yaml) the merged PR added or changed (read from "
                            "git: the merge commit against its first parent, or a rebase merge's commits), write "
                            "its `verification` block from the API's facts: `verified: true` with approved_by, "
                            "approved_in and approved_at only when a maintainer (write, maintain or admin; not the "
                            "author, not a bot) approved the merged head commit and the approval stands; "
                            "`verified: false` otherwise. A pin the PR did not move keeps the approval it had. "
                            "--all then re-proves every `verified: true` block in the checkout and rewrites the "
                            "ones it cannot prove to `verified: false`. Needs the full history (exit 1 on a shallow "
                            "clone or a missing commit). The publish workflow runs it with --all on each push to "
                            "the default branch, and for the merge commit an automerge names when it starts "
                            "publish, and commits the result before the build.")
    verify.add_argument("--repo", required=True, metavar="OWNER/NAME", help="The registry repository.")
    verify.add_argument("--api-url", default=None, metavar="URL",
                        help="GitHub API root. Default: $GITHUB_API_URL or https://api.github.com.")
    verify.add_argument("--skills-dir", default="skills", metavar="DIR",
                        help="The registry's skill folder, directly under the repository root (default: skills).")
    verify.add_argument("--root", default=".", metavar="DIR",
                        help="The registry checkout at the merge (the pointers written there). Default: .")
    which = verify.add_mutually_exclusive_group()
    which.add_argument("--pr", type=int, metavar="N", help="The merged PR.")
    which.add_argument("--commit", metavar="SHA", help="A commit on the default branch: the PRs it merged (the "
                       "push's head, $GITHUB_SHA); a commit that merged no PR records nothing.")
    verify.add_argument("--all", action="store_true", dest="prove_all",
                        help="Also re-prove every `verified: true` block in the checkout (the PR in approved_in "
                             "merged into the default branch and set this pin, its head approved by approved_by, "
                             "a maintainer, at approved_at); rewrite each unproved one to `verified: false`.")
    verify.add_argument("--dry-run", action="store_true", help="Decide and print, write nothing.")
    verify.add_argument("--json", action="store_true", help="Print the outcome as JSON.")


def run(args) -> int:
    from github import GithubException

    from skillyard.errors import SkillyardError

    try:
        return _run(args)
    except GithubException as exc:
        message = exc.data.get("message") if isinstance(exc.data, dict) else str(exc.data)
        raise SkillyardError(f"GitHub answered {exc.status}: {message}",
                             "Check --repo, --pr and that the token may read the repository and write "
                             "pull requests and issues.") from None


def checked_skills_dir(value: str) -> str:
    """One plain folder name (the bots read a PR's paths as `<skills dir>/<skill>/…`)."""
    from skillyard.errors import SkillyardError
    from skillyard.format.paths import component_problem, shown

    problem = component_problem(value) if value and "/" not in value and "\\" not in value else "is not one folder name"
    if problem:
        raise SkillyardError(f"--skills-dir `{shown(value)}` {problem}",
                             "Give the skill folder directly under the repository root, e.g. --skills-dir skills.",
                             exit_code=2)
    return value


def _run(args) -> int:
    import os

    from skillyard.bot import github_io
    from skillyard.cli.common import print_json

    skills_dir = checked_skills_dir(args.skills_dir)
    api_url = args.api_url or os.environ.get("GITHUB_API_URL") or github_io.DEFAULT_API_URL
    gh = github_io.connect(github_io.token_from_env(), api_url)
    if args.bot_command == "record-verification":
        return _record(args, gh, skills_dir)
    registry = github_io.read_registry_file(args.registry) if args.registry else None
    if args.bot_command == "report":
        outcome = github_io.run_report(gh, args.repo, args.artifact, pr_number=args.pr, head_sha=args.head_sha,
                                       run_id=args.run_id, registry=registry, max_bytes=args.max_bytes, login=args.bot_login,
                                       skills_dir=skills_dir)
        if args.json:
            print_json({"ok": True, **outcome.to_dict()})
        else:
            print(f"PR #{outcome.pr}: comment {outcome.comment}; labels {', '.join(outcome.labels) or 'none'}"
                  + (f" (+{', '.join(outcome.added)})" if outcome.added else "")
                  + (f" (-{', '.join(outcome.removed)})" if outcome.removed else ""))
        return 0
    if args.bot_command == "open-bump-prs":
        return _open_bump_prs(gh, args, skills_dir)
    from skillyard.bot.bump_io import run_bump_automerge

    outcome = github_io.run_automerge(gh, args.repo, args.pr, head_sha=args.head_sha, run_id=args.run_id,
                                      registry=registry, method=args.method, dry_run=args.dry_run,
                                      login=args.bot_login, skills_dir=skills_dir,
                                      required_check=required_check_name(args.root),
                                      fetch=github_io.zip_fetcher(github_io.token_from_env(), api_url),
                                      api_url=api_url, bump_author=args.bump_author or bump_author_name(args.root),
                                      bump_handler=run_bump_automerge)
    if args.json:
        print_json({"ok": True, **outcome})
    else:
        verdict = "merged" if outcome["merged"] else ("would merge" if outcome["merge"] else "not merged")
        print(f"PR #{outcome['pr']}: {verdict}")
        from skillyard.format.safety import visible

        for reason in outcome["reasons"]:  # reasons quote the PR (names, paths): one visible line each in the CI log
            print(f"  - {visible(reason, one_line=True)}")
        if outcome["label_removed"]:
            print("  (the automerge label was removed)")
        if outcome["waiting"]:
            print("  (waiting for checks; a later run retries)")
    return 0


def _record(args, gh, skills_dir: str) -> int:
    import re

    from skillyard.bot import verification_io
    from skillyard.cli.common import print_json
    from skillyard.errors import SkillyardError

    if args.pr is None and args.commit is None and not args.prove_all:
        raise SkillyardError("record-verification needs --pr, --commit or --all",
                             "Pass the push's commit (--commit \"$GITHUB_SHA\"), and --all to re-prove every "
                             "verified pin.", exit_code=2)
    if args.commit is not None and not re.fullmatch(r"[0-9a-f]{40}", args.commit):
        raise SkillyardError(f"--commit {args.commit[:50]!r} is not a full commit SHA",
                             "Pass the 40-hex SHA of the push (in Actions: $GITHUB_SHA).", exit_code=2)
    outcome = verification_io.record(gh, args.repo, args.root, pr_number=args.pr, commit=args.commit,
                                     skills_dir=skills_dir, dry_run=args.dry_run, prove_all=args.prove_all)
    if args.json:
        print_json({"ok": True, **outcome})
        return 0
    if not outcome["pulls"] and (args.pr is not None or args.commit is not None):
        print("no merged PR: nothing to record")
    for item in outcome["pointers"]:
        block = item.get("verification") or {}
        state = item.get("skipped") or ("verified by @" + block["approved_by"] if block.get("verified")
                                        else "not verified")
        action = ("would write" if outcome["dry_run"] else "written") if item.get("changed") else "unchanged"
        print(f"PR #{item['pr']} {item['pointer']}: {state} ({action})")
    proof = outcome.get("proof")
    if proof is not None:
        from skillyard.format.safety import visible

        print(f"re-proved {proof['checked']} verified pointer(s) naming {proof['pulls']} PR(s); "
              f"{len(proof['revoked'])} set to verified: false")
        for item in proof["revoked"]:
            print(f"  - {item['pointer']}: {visible(item['reason'], one_line=True)}")
    return 0


def required_check_name(root: str = ".") -> str:
    """`validate_check` in the registry's settings (`[tool.skillyard]`) under `root`, else `validate`: the
    workflow (and check) whose success and report an automerge requires."""
    from skillyard.bot.decide import DEFAULT_REQUIRED_CHECK
    from skillyard.errors import SkillyardError
    from skillyard.registry.config import load_registry_config

    config = load_registry_config(root)
    name = config.section.get("validate_check", DEFAULT_REQUIRED_CHECK)
    if not isinstance(name, str) or not name.strip() or len(name) > 100 or not name.isprintable():
        raise SkillyardError(f"{config.root / config.file}: `validate_check` is {str(name)[:100]!r}",
                             'Set it to the name of the validate workflow, e.g. validate_check = "validate".',
                             exit_code=2)
    return name


def bump_author_name(root: str = ".") -> str:
    """`bump_author` in the registry's settings under `root`, else github-actions[bot]: who opens bump PRs."""
    from skillyard.bot.bump_rules import DEFAULT_BUMP_AUTHOR
    from skillyard.bot.decide import normalise_handle
    from skillyard.errors import SkillyardError
    from skillyard.registry.config import load_registry_config

    config = load_registry_config(root)
    name = config.section.get("bump_author", DEFAULT_BUMP_AUTHOR)
    if normalise_handle(name) is None:
        raise SkillyardError(f"{config.root / config.file}: `bump_author` is {str(name)[:100]!r}",
                             'Set it to the GitHub login that opens bump PRs, e.g. bump_author = "my-app[bot]".',
                             exit_code=2)
    return name


def _open_bump_prs(gh, args, skills_dir: str) -> int:
    import json
    from pathlib import Path

    from skillyard.bot.bump_io import open_bump_prs
    from skillyard.cli.common import print_json
    from skillyard.errors import SkillyardError

    try:
        with open(args.results, encoding="utf-8") as handle:
            results = json.loads(handle.read(16 * 1024 * 1024))
    except (OSError, ValueError) as exc:
        raise SkillyardError(f"cannot read the bump results {args.results}: {exc}",
                             "Pass the output of `skillyard external bump --json`.") from None
    outcome = open_bump_prs(gh, args.repo, results, Path(args.root), skills_dir=skills_dir)
    if args.json:
        print_json(outcome)
    else:
        for pr in outcome["prs"]:
            print(f"{pr['name']}: PR #{pr['number']} {'opened' if pr['created'] else 'refreshed'} ({pr['branch']})")
        if not outcome["prs"]:
            print("no skill was bumped: no PR to open")
    return 0
