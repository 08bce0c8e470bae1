"""The `skill` commands: one module per command.

COMMANDS is the static table the top-level help is printed from (name -> (module, one-line help)), so that help
imports no command module and a run imports only its own; tests/cli/test_command_table.py keeps it equal to the
modules' NAME and HELP.
"""

COMMANDS: dict[str, tuple[str, str]] = {
    "adapter": ("adapter",
                "list install/emit targets (agent runtimes and API formats) or install "
                "one from a Python package"),
    "check-deps": ("check_deps", "check installed skills' MCP tool dependencies (hub, or the agents' MCP servers)"),
    "config": ("config", "get, set, unset or list the client's settings (config.yaml), each value checked"),
    "doctor": ("doctor",
               "check config, sources, cache, MCP hub, target folders and installed "
               "skills; exit 1 on problems"),
    "emit": ("emit", "write a skill's files for one target (e.g. openai tools.json + system.md) without installing"),
    "evolve": ("evolve", "record or list experience notes for an installed skill (evolution.json)"),
    "generate": ("generate",
                 "draft a new skill (SKILL.md) with an OpenAI-compatible "
                 "chat-completions endpoint from config"),
    "info": ("info",
             "show a skill (registry name, github: ref, folder or archive): inputs, "
             "MCP dependencies, files, versions"),
    "init": ("init",
             "create a new skill folder (SKILL.md, skill.yaml, optional scripts/); "
             "with --description it passes strict validation as written"),
    "install": ("install",
                "install skills (name[@version], github:owner/repo[/path][@ref], a "
                "folder, or a .zip/.tar.gz/.tgz archive); no ref restores the lockfile"),
    "list": ("list", "list installed skills (your home's and the current project's)"),
    "mcp": ("mcp", "serve available skills to MCP clients over stdio or loopback HTTP (index, load_skill, "
                   "read_skill_file, skill:// resources, prompts)"),
    "outdated": ("outdated", "list installed skills that have a newer version in their source"),
    "permissions": ("permissions", "list or revoke remembered \"always allow\" answers (per agent and skill)"),
    "prompt": ("prompt", "print the available-skills index for a model (<available_skills> XML, text or JSON)"),
    "publish": ("publish", "Validate a skill and open a pull request adding it to a registry (GitHub API)."),
    "read": ("read", "print a file of an available skill (the read_skill_file tool, from the command line)"),
    "search": ("search", "search the skills of every source (name, tags, description)"),
    "source": ("source", "add, list, remove, refresh or reorder registry sources"),
    "uninstall": ("uninstall", "remove installed skills and every target they were placed for"),
    "update": ("update",
               "update installed skills from their source (shows version and file "
               "changes; keeps your edits)"),
    "validate": ("validate",
                 "check a skill (folder or installed name) with the registry's rules, "
                 "and against a --target"),
}
