"""skillyard init-registry: create a new, working skill registry in a folder."""

from __future__ import annotations

NAME = "init-registry"
HELP = "create a new skill registry (settings, an example skill, site pages, CI workflows)"
DESCRIPTION = """Create a registry that works with no edits: pyproject.toml with [tool.skillyard], skills/ with one
example skill, mkdocs.yml and site/ pages, .github/ (CI workflows pinned by commit, CODEOWNERS, a pull request
template), README.md and .gitignore.

DIR must be new or empty: the files are assembled beside it and moved in at once, so a failure leaves nothing.
--force adds the files to a non-empty folder (a fresh clone, say) but never replaces a file that is already there;
beside an existing pyproject.toml the settings go to skillyard.toml, which every command reads first.

Hosts (where clients fetch the skills' files; see the registry.json page):
  github             raw.githubusercontent.com, pinned by commit (needs --repository; the default with it)
  github-enterprise  your GitHub Enterprise (needs --repository and --raw-url)
  static             any web server serving registry.json with skills/ beside it (the default without --repository)

examples:
  skillyard init-registry my-skills --repository acme/my-skills
  skillyard init-registry team-skills --host static --description "Our team's skills"
  cd my-skills && git init && skillyard validate && skillyard build && skillyard site build --out _site
"""


def add_arguments(parser) -> None:
    parser.add_argument("dir", metavar="DIR", help="folder to create (new or empty)")
    parser.add_argument("--name", help="registry name: lowercase letters, digits, hyphens (default: from DIR)")
    parser.add_argument("--description", default="", help="one line saying what the registry holds")
    parser.add_argument("--repository", metavar="OWNER/REPO", help="the GitHub repository that will hold it")
    parser.add_argument("--host", metavar="KIND", help="github, github-enterprise or static: where clients fetch "
                        "files (default: github with --repository, else static)")
    parser.add_argument("--raw-url", metavar="URL", help="raw file host for github-enterprise (or another github)")
    parser.add_argument("--files-url", metavar="URL", help="static host: absolute base URL of the files "
                        "(default: beside registry.json)")
    parser.add_argument("--repository-url", metavar="URL", help="web page of the repository, when not derivable")
    parser.add_argument("--force", action="store_true",
                        help="add the files to a non-empty DIR, keeping every file already there")
    parser.add_argument("--json", action="store_true", help="print the files written as JSON")


def run(args) -> int:
    from pathlib import Path

    from skillyard.cli.common import print_json, visible
    from skillyard.errors import UsageError
    from skillyard.registry.init import InitOptions, registry_files, slugify, write_registry

    target = Path(args.dir)
    name = args.name
    if name is None:
        name = slugify(target.resolve().name)
        if not name:
            raise UsageError(f"cannot make a registry name from the folder name {target.resolve().name!r}",
                             "Pass --name, e.g. --name team-skills.")
    if args.force and target.is_dir():
        from skillyard.registry.config import load_registry_config

        existing = load_registry_config(target)
        if existing.section:
            raise UsageError(f"{target}: already holds registry settings ({existing.file}); nothing was written",
                             "Edit those settings instead, or choose a new folder.")
    # A project's own pyproject.toml is kept (--force); the settings then go to skillyard.toml, read first.
    settings_file = "skillyard.toml" if (target / "pyproject.toml").exists() else "pyproject.toml"
    options = InitOptions(name=name, description=args.description, repository=args.repository, host=args.host,
                          raw_url=args.raw_url, files_url=args.files_url, repository_url=args.repository_url,
                          settings_file=settings_file)
    files = registry_files(options)
    result = write_registry(target, files, force=args.force)
    if args.json:
        print_json({"ok": True, "dir": str(target), "name": name, "written": result.written, "kept": result.kept})
        return 0
    print(f"created registry {name!r} in {visible(str(target))}: {len(result.written)} file(s)")
    for rel in result.kept:
        print(f"  kept existing {visible(rel)}")
    print(f"next: {next_steps(target)}")
    return 0


def next_steps(target) -> str:
    """The shell line that takes the new folder to a built registry and site, runnable as printed: the build pins
    files by commit, so the files are committed first (tests/cli/test_init_registry_next.py runs it)."""
    import shlex

    return (f"cd {shlex.quote(str(target))} && git init -q && git add -A && git commit -qm 'A new registry' "
            "&& skillyard validate && skillyard build && skillyard site build --out _site")
