"""The `skillyard` commands: one module per command.

COMMANDS is the static table the top-level help is printed from (name -> (module, one-line help)), so that help
imports no command module and a run imports only its own; tests/cli/test_command_table.py keeps it equal to the
modules' NAME and HELP.
"""

COMMANDS: dict[str, tuple[str, str]] = {
    "bot": ("bot", "Comment on, label and automerge skill pull requests, record verified pins at merge (GitHub API; "
                   "token from $GITHUB_TOKEN)."),
    "build": ("build", "compile registry.json, index.json and compatibility files from skills/"),
    "external": ("external", "list skills that live in their own GitHub repositories (pointer entries)"),
    "init-registry": ("init_registry",
                      "create a new skill registry (settings, an example skill, site pages, "
                      "CI workflows)"),
    "migrate": ("migrate", "convert skill folders to the portable form (standard SKILL.md + skill.yaml)"),
    "site": ("site", "build or preview the registry's static website (mkdocs-material)"),
    "validate": ("validate", "check skill folders (default: every skill under skills/)"),
}
