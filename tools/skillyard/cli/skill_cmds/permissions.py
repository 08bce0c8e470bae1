"""skill permissions: list and revoke remembered "always allow" answers to `ask` rules."""

from __future__ import annotations

NAME = "permissions"
HELP = "list or revoke remembered \"always allow\" answers (per agent and skill)"
DESCRIPTION = """\
When an agent's rules say `ask` for a skill and you answer "always" (`skill read ... --always`, or `a` at the
prompt; a host calling the Python API returns "always" from its approve callback), the answer is remembered for
that agent and that skill's SKILL.md in $SKILLCLI_HOME/approvals.json (default ~/.skillcli/approvals.json;
$SKILL_APPROVALS names another file). A same-named skill in another folder is asked about again. `deny` rules
always win. Revoking makes the next load ask again.

examples:
  skill permissions list
  skill permissions list --agent reviewer --json
  skill permissions revoke code-secrets --agent reviewer
  skill permissions revoke --all
"""


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = sub.add_parser("list", help="show remembered approvals")
    listing.add_argument("--agent", metavar="NAME", help="only this agent's")
    listing.add_argument("--json", action="store_true", help="print them as JSON")
    revoke = sub.add_parser("revoke", help="forget approvals so the next load asks again")
    revoke.add_argument("skill", nargs="?", metavar="SKILL", help="the skill (every agent's, unless --agent)")
    revoke.add_argument("--agent", metavar="NAME", help="only this agent's approvals")
    revoke.add_argument("--all", action="store_true", help="every skill (of --agent, or of every agent)")


def run(args) -> int:
    from skillyard.cli.common import print_json
    from skillyard.errors import SkillyardError
    from skillyard.runtime.approvals import Approvals, ApprovalsError

    store = Approvals()
    try:
        if args.action == "list":
            agents = store.load()
            rows = [{"agent": a, "skill": s, **entry} for a, skills in sorted(agents.items())
                    for s, entry in sorted(skills.items()) if args.agent in (None, a)]
            if args.json:
                print_json({"file": str(store.path), "approvals": rows})
            elif not rows:
                print(f"no remembered approvals ({store.path})")
            for row in [] if args.json else rows:
                print(f"{row['agent']}: {row['skill']} ({row['location']}, since {row['approved_at']})")
            return 0
        if not args.skill and not args.all:
            raise SkillyardError("say which approvals to revoke", "Name a SKILL, or pass --all.")
        if args.skill and args.all:
            raise SkillyardError("give a SKILL or --all, not both", "Drop one of them.")
        removed = store.revoke(args.agent, None if args.all else args.skill)
    except ApprovalsError as exc:
        raise SkillyardError(str(exc), "Fix the file, or delete it (every approval is then asked again).") from None
    if not removed:
        raise SkillyardError("no remembered approval matches", "See `skill permissions list`.")
    for agent, skill in removed:
        print(f"revoked: {agent}: {skill}")
    return 0
