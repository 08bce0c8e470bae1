"""`skillyard init-registry`: the files of a new, working registry, and a writer that never destroys anything.

`registry_files(options)` is pure apart from reading the templates shipped in `init_template/`: it returns
{relative path: bytes}. Its `[tool.skillyard]` goes through the same loader `skillyard build` uses, so init can never write settings the build rejects. `write_registry` puts the files in place: a new
or empty folder is assembled in a temporary folder beside it and renamed into place (all or nothing); with
`force`, files are added to a non-empty folder one by one, never replacing an existing file, and removed again
if any write fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
import tomllib
import unicodedata
from dataclasses import dataclass
from html import escape
from importlib import resources
from pathlib import Path

from skillyard.errors import SkillyardError, UsageError
from skillyard.format.paths import path_problem
from skillyard.format.slug import slugify  # a registry name from a folder name (MAX_NAME: its 64)
from skillyard.registry.config import DEFAULT_RAW_URL, HOSTS, RegistryConfig

NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*\Z")
MAX_NAME = 64
MAX_DESCRIPTION = 500
# GitHub's own rules: owner 1-39 letters, digits, hyphens (not first); repository letters, digits, . _ -
OWNER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}\Z")
REPO_RE = re.compile(r"^[A-Za-z0-9._-]{1,100}\Z")
SKIPPED = {"__pycache__", ".DS_Store"}
REGISTRY_FIELDS = ("version", "license", "tags")


@dataclass(frozen=True)
class InitOptions:
    name: str
    description: str = ""
    repository: str | None = None
    host: str | None = None
    raw_url: str | None = None
    files_url: str | None = None
    repository_url: str | None = None
    settings_file: str = "pyproject.toml"  # or skillyard.toml, beside a project's own pyproject.toml


def check_options(options: InitOptions) -> None:
    """Refuse what would give a registry the build rejects, or text that cannot sit in TOML, YAML and Markdown."""
    if not NAME_RE.fullmatch(options.name) or len(options.name) > MAX_NAME:
        raise UsageError(f"--name {options.name!r} is not a registry name",
                         f"Use lowercase letters, digits and single hyphens (at most {MAX_NAME}), e.g. "
                         f"{slugify(options.name) or 'team-skills'!r}.")
    for flag, text in (("--description", options.description), ("--raw-url", options.raw_url),
                       ("--files-url", options.files_url), ("--repository-url", options.repository_url)):
        if text is not None and (len(text) > MAX_DESCRIPTION or not _plain_line(text)):
            raise UsageError(f"{flag} must be one line of at most {MAX_DESCRIPTION} characters without control "
                             "or invisible characters", "Shorten it, or write longer text into README.md afterwards.")
    if options.repository is not None:
        owner, _, repo = options.repository.partition("/")
        if not OWNER_RE.fullmatch(owner) or not REPO_RE.fullmatch(repo) or repo in (".", ".."):
            raise UsageError(f"--repository {options.repository!r} is not a GitHub repository",
                             'Give it as "owner/name", e.g. "acme/agent-skills".')
    host = host_of(options)
    if host not in HOSTS:
        raise UsageError(f"--host {host!r} is not a host kind", f"Use one of: {', '.join(HOSTS)}.")
    wrong = {"--raw-url": options.raw_url and host == "static",
             "--files-url": options.files_url and host != "static",
             "--repository-url": options.repository_url and host == "static" and not options.repository}
    for flag, bad in wrong.items():
        if bad:
            raise UsageError(f"{flag} does not apply to --host {host}",
                             "--raw-url is for github and github-enterprise, --files-url for static; leave it out.")
    if host != "static" and not options.repository:
        raise UsageError(f"--host {host} needs --repository owner/name", "Add --repository, or use --host static.")


def _plain_line(text: str) -> bool:
    """No control, format (bidi), surrogate, private-use or unassigned character and no line break: none belongs
    in a one-line setting, and TOML, YAML and HTML each refuse or hide some of them."""
    return not any(unicodedata.category(c)[0] == "C" or unicodedata.category(c) in ("Zl", "Zp") for c in text)


def host_of(options: InitOptions) -> str:
    return options.host or ("github" if options.repository else "static")


def _toml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # checked one-line text: JSON's escapes are TOML's


def settings_text(options: InitOptions) -> str:
    """`[tool.skillyard]` for pyproject.toml, or the same keys at the top of skillyard.toml."""
    lines = ["# The registry's settings, read by `skillyard validate`, `build` and `site build`.",
             "# See https://skillyard.github.io/registry/registry-json/ for the host settings.",
             *(["[tool.skillyard]"] if options.settings_file == "pyproject.toml" else []),
             f"name = {_toml_string(options.name)}",
             f"description = {_toml_string(options.description)}"]
    if options.repository:
        lines.append(f"repository = {_toml_string(options.repository)}")
    lines.append(f"host = {_toml_string(host_of(options))}")
    for key in ("raw_url", "files_url", "repository_url"):
        value = getattr(options, key)
        if value is not None:
            lines.append(f"{key} = {_toml_string(value)}")
    lines += ['skills_dir = "skills"', 'mode = "strict"',
              "required_fields = [" + ", ".join(f'"{f}"' for f in REGISTRY_FIELDS) + "]", ""]
    return "\n".join(lines)


def check_config(text: str, settings_file: str = "pyproject.toml") -> None:
    """Load the generated settings exactly as `skillyard build` does and ask for the same blocks."""
    section = tomllib.loads(text)
    if settings_file == "pyproject.toml":
        section = section["tool"]["skillyard"]
    config = RegistryConfig(Path("."), section, settings_file)
    try:
        config.repository_block()
        config.policy()
        if "repository_url" in section:  # the build copies it as is; a link on every skill page must be http(s)
            config._http_url("repository_url", section["repository_url"])
    except SkillyardError as exc:  # name the option the user typed, not only the setting it became
        message = exc.message.split(": ", 1)[-1]
        for key in ("raw_url", "files_url", "repository_url", "repository", "host"):
            flag = "--" + key.replace("_", "-")
            message = message.replace(f"`{key}`", f"{flag} ({key} in [tool.skillyard])")
        raise UsageError(message, exc.fix) from None


def registry_url(options: InitOptions) -> str:
    """Where clients will find registry.json, for the README (the default branch is assumed to be `main`)."""
    host = host_of(options)
    if host == "static":  # wherever the registry folder is served; files_url may be a different place
        return "https://YOUR-HOST/PATH/registry.json"
    raw = (options.raw_url or DEFAULT_RAW_URL).rstrip("/")
    return f"{raw}/{options.repository}/main/registry.json"


def _substitutions(options: InitOptions) -> dict[str, str]:
    from skillyard.registry import workflows_pin

    description = options.description or f"Skills for AI agents, published by {options.name}."
    return {
        "__SKILLYARD_DESCRIPTION_YAML__": json.dumps(description, ensure_ascii=False),
        "__SKILLYARD_DESCRIPTION__": escape(description, quote=False),
        "__SKILLYARD_NAME__": options.name,
        "__SKILLYARD_REGISTRY_URL__": registry_url(options),
        "__SKILLYARD_REF__": workflows_pin.WORKFLOWS_REF,
        "__SKILLYARD_REPOSITORY__": workflows_pin.WORKFLOWS_REPOSITORY,
    }


def _output_path(rel: str) -> str:
    """Template names avoid dotfiles (packaging tools skip them): `dot-x` -> `.x`; `workflows/` -> .github/."""
    if rel.startswith("workflows/"):
        return ".github/" + rel
    return "/".join("." + part[4:] if part.startswith("dot-") else part for part in rel.split("/"))


def _walk(folder, prefix: str = ""):
    """(relative path, bytes) of every file under a packaged folder (a Traversable: works from a wheel or zip)."""
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name in SKIPPED or entry.name.endswith(".pyc"):
            continue
        rel = f"{prefix}{entry.name}"
        if entry.is_dir():
            yield from _walk(entry, rel + "/")
        else:
            yield rel, entry.read_bytes()


def codeowners_text(options: InitOptions) -> str:
    head = "# Who reviews pull requests here: every path, by the repository owner. Edit to name a team.\n"
    if options.repository:
        return head + f"* @{options.repository.split('/')[0]}\n"
    return head + "# * @your-org/skill-maintainers\n"


def template_root():
    return resources.files("skillyard.registry") / "init_template"


def registry_files(options: InitOptions, template=None) -> dict[str, bytes]:
    """{relative path: bytes} of the new registry from `template` (default: the packaged `init_template/`);
    raises UsageError for options the build would reject."""
    check_options(options)
    if options.settings_file not in ("pyproject.toml", "skillyard.toml"):
        raise ValueError(options.settings_file)
    settings = settings_text(options)
    check_config(settings, options.settings_file)
    subs = _substitutions(options)
    files: dict[str, bytes] = {options.settings_file: settings.encode("utf-8"),
                               ".github/CODEOWNERS": codeowners_text(options).encode("utf-8")}
    for rel, data in _walk(template or template_root()):
        text = data.decode("utf-8")
        for key, value in subs.items():
            text = text.replace(key, value)
        files[_output_path(rel)] = text.encode("utf-8")
    for rel in files:
        problem = path_problem(rel)
        if problem:  # our own templates: a failure here is a packaging bug, caught by the tests
            raise SkillyardError(f"init template {rel!r}: {problem}", "Report this to the skillyard maintainers.")
    return dict(sorted(files.items()))


@dataclass
class WriteResult:
    written: list[str]
    kept: list[str]


def _is_empty_dir(path: Path) -> bool:
    return path.is_dir() and not any(path.iterdir())  # DIR may be the user's own symlink to a folder


def write_registry(target: Path, files: dict[str, bytes], *, force: bool = False) -> WriteResult:
    """Write `files` under `target`. A missing `target` is made all at once (temporary folder beside it, then one
    rename); an existing empty one (perhaps the shell's current folder, which a rename would orphan) is filled file
    by file, and so is a non-empty one with `force`, keeping every existing file; a failure removes what was added."""
    if os.path.lexists(target) and not target.is_dir():
        raise UsageError(f"{target}: exists and is not a folder", "Choose a new folder name.")
    target = Path(os.path.abspath(target))  # "." and "x/.." get a real name and parent; symlinks stay as given
    parent = target.parent
    if not parent.is_dir():
        raise UsageError(f"{parent}: no such folder", f"Create {parent} first, or choose another place.")
    if not os.path.lexists(target):
        return _write_new(target, files)
    if not _is_empty_dir(target) and not force:
        raise UsageError(f"{target}: folder is not empty; nothing was written",
                         "Choose a new or empty folder, or pass --force to add the registry's files beside the "
                         "existing ones (existing files are never replaced).")
    return _write_into(target, files)


def _write_tree(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _write_new(target: Path, files: dict[str, bytes]) -> WriteResult:
    """The name is claimed first with mkdir (which fails on anything already there, a symlink included), and the
    finished tree is renamed over that empty folder of ours: a folder, file or link another program makes at the
    name meanwhile is never replaced (checking then renaming would replace one made between the two steps)."""
    staging = Path(tempfile.mkdtemp(prefix=".init-registry-", dir=target.parent))  # short: any DIR name fits
    claimed = False
    try:
        _write_tree(staging, files)
        staging.chmod(0o777 & ~_umask())
        try:
            os.mkdir(target, 0o700)
        except FileExistsError:
            raise UsageError(f"{target}: was created meanwhile by another program; nothing was written",
                             "Run the command again with a new folder name.") from None
        claimed = True
        try:
            os.rename(staging, target)  # replaces only an empty folder; ours, unless someone filled it meanwhile
        except OSError as exc:
            raise UsageError(f"{target}: was changed by another program while being created ({exc.strerror}); "
                             "nothing was written", "Run the command again with a new folder name.") from None
        claimed = False
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if claimed:
            with contextlib.suppress(OSError):
                os.rmdir(target)  # only while still empty: never someone else's files
        raise
    return WriteResult(written=list(files), kept=[])


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_into(target: Path, files: dict[str, bytes]) -> WriteResult:
    """Add the missing files to an existing folder; a symlink or non-folder on the way is refused before anything
    is written, and on any failure every file and folder made so far is removed again."""
    kept, todo = [], {}
    for rel, data in files.items():
        parts = rel.split("/")
        for depth in range(1, len(parts)):
            step = target.joinpath(*parts[:depth])
            if step.is_symlink() or (os.path.lexists(step) and not step.is_dir()):
                raise UsageError(f"{step}: is a symlink or a file where a folder is needed; nothing was written",
                                 "Move it away, or choose a new folder.")
        path = target / rel
        if path.is_dir() and not path.is_symlink():
            raise UsageError(f"{path}: is a folder where the registry's file {rel} goes; nothing was written",
                             "Move the folder away, or choose a new folder.")
        if os.path.lexists(path):
            kept.append(rel)
        else:
            todo[rel] = data
    made: list[Path] = []
    try:
        for rel, data in todo.items():
            path = target / rel
            missing = [p for p in reversed(path.parents) if p.is_relative_to(target) and not p.exists()]
            for folder in missing:
                folder.mkdir()
                made.append(folder)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
            made.append(path)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
    except BaseException:
        for path in reversed(made):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        raise
    return WriteResult(written=list(todo), kept=kept)
