"""`skill publish [PATH]`: open a pull request that adds or updates a skill in a registry."""

from __future__ import annotations

NAME = "publish"
HELP = "Validate a skill and open a pull request adding it to a registry (GitHub API)."
DESCRIPTION = """\
Validates the skill folder in strict mode, then (unless --dry-run) forks the registry if you cannot push to it,
commits the folder to a new branch through the Git Data API (blobs, tree, commit, ref) and opens a pull request
whose description is generated from the skill's metadata. Prints the PR's URL.

The token comes from $GITHUB_TOKEN (or $GH_TOKEN). A skill installed from a private source (its skill.lock.json
names a source that needs a token, or a host other than public GitHub) is only published to a public registry
with --to-public.

examples:
  skill publish ./my-skill --dry-run          # show the files, branch, title and body that would be sent
  GITHUB_TOKEN=... skill publish ./my-skill   # fork skillyard/registry, push a branch, open the PR
  skill publish . --registry acme/skills --api-url https://ghe.example.com/api/v3 --json
"""


def add_arguments(parser) -> None:
    parser.add_argument("path", nargs="?", default=".", metavar="PATH", help="The skill folder (default: .).")
    parser.add_argument("--registry", default=None, metavar="OWNER/REPO",
                        help="The registry repository (default: $SKILL_PUBLISH_REGISTRY or skillyard/registry).")
    parser.add_argument("--dry-run", action="store_true", help="Show exactly what would be sent; send nothing.")
    parser.add_argument("--json", action="store_true", help="Print the plan or the result as JSON.")
    parser.add_argument("--to-public", action="store_true",
                        help="Allow publishing a skill from a private source to a public registry.")
    parser.add_argument("--api-url", default=None, metavar="URL",
                        help="GitHub API root (default: config github.api_url / $SKILL_GITHUB_API_URL, else "
                             "https://api.github.com).")


def _print_plan(plan) -> None:
    print(f"Would publish {plan.name} {plan.version} to {plan.registry}")
    print(f"  branch: {plan.branch}")
    print(f"  title:  {plan.title}")
    print(f"  commit: {plan.commit_message}")
    print(f"  files ({len(plan.files)}):")
    for f in plan.files:
        print(f"    {f.mode} {f.git_sha} {f.size:>8}  {f.path}")
    if plan.private_reason:
        print(f"  private source: {plan.private_reason} (a public registry needs --to-public)")
    for hint in plan.hints:
        print(f"  hint: {hint}")
    print("  body:")
    for line in plan.body.splitlines():
        print(f"    {line}")


def run(args) -> int:
    import os

    from skillyard.cli.common import print_json
    from skillyard.client import publish
    from skillyard.errors import SkillyardError

    registry = args.registry or os.environ.get("SKILL_PUBLISH_REGISTRY") or publish.DEFAULT_REGISTRY
    plan = publish.plan_publish(args.path, registry)
    if args.dry_run:
        if args.json:
            print_json({"ok": True, "dry_run": True, **plan.to_dict()})
        else:
            _print_plan(plan)
        return 0
    token = (os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN") or "").strip()
    if not token:
        raise SkillyardError("no GitHub token: $GITHUB_TOKEN is empty",
                             "Create a token that can fork and open PRs, export GITHUB_TOKEN, or use --dry-run.")
    api_url = args.api_url
    if not api_url:
        from skillyard.client.config import load_config

        api_url = load_config().github_api_url
    import requests  # PyGithub's transport
    from github import GithubException  # PyGithub is imported here, at run time only

    try:
        result = publish.execute(plan, publish.connect(token, api_url), to_public=args.to_public)
    except GithubException as exc:
        message = exc.data.get("message") if isinstance(exc.data, dict) else str(exc.data)
        raise SkillyardError(f"{api_url} refused the request ({exc.status}): {str(message)[:300]}",
                             "Check the token's scopes (repo / public_repo) and --registry.") from None
    except requests.RequestException as exc:
        # Nothing listening, a dropped connection, a timeout: say where, never a traceback.
        raise SkillyardError(f"cannot reach the GitHub API at {api_url} ({type(exc).__name__}); nothing was published",
                             "Check --api-url (or github.api_url / $SKILL_GITHUB_API_URL) and your network, then run "
                             "`skill publish` again.") from None
    if args.json:
        print_json({**result, "dry_run": False, "plan": plan.to_dict()})
    else:
        verb = "Opened" if result["created"] else "Updated"
        print(f"{verb} {result['url']}")
    return 0
