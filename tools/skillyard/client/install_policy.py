"""What the client accepts and how much: the Policy installs validate with, which findings refuse and which only
warn (standard violations runtimes tolerate, unless --strict / `install.strict`), the installed folder's name, and
the client's own size, count and download limits, each refusal naming the setting that raises it.

Limits for installing are the client's own (config `install.*`, sized like `npx skills`): a registry's stricter
policy is for publishing. Everything else that validation calls an error (paths, links, invisible characters, YAML,
encoding, ...) is safety and always refuses.
"""

from __future__ import annotations

from skillyard.client import store
from skillyard.errors import SkillyardError
from skillyard.format.policy import INSTALL_TOLERATED_RULES

SHOWN_ERRORS = 5  # a hostile or mistaken folder can hold thousands: the message names the first few and counts the rest


def summarize_errors(errors, *, with_lines: bool = False) -> str:
    """The first few error findings on one line, then how many more: enough to act on, never a wall of text."""
    shown = "; ".join(f"{f.file or '.'}{':' + str(f.line) if with_lines and f.line else ''}: {f.message}"
                      for f in errors[:SHOWN_ERRORS])
    rest = len(errors) - SHOWN_ERRORS
    return shown + (f"; and {rest} more error(s)" if rest > 0 else "")


TOLERATED_RULES = INSTALL_TOLERATED_RULES  # format/policy.py: the list is policy, not install code


LIMIT_KEYS = {"package-too-large": "install.max_total_bytes", "file-too-large": "install.max_file_bytes",
              "too-many-files": "install.max_files"}


def client_policy(config):
    """The format Policy installs validate with: lenient, and the client's own size and count limits."""
    from skillyard.format import Policy

    if config is None:
        from skillyard.client.config import load_config

        config = load_config()
    return Policy(strict=False, max_total_bytes=config.install_max_total_bytes,
                  max_file_bytes=config.install_max_file_bytes, max_files=config.install_max_files)


def is_strict(config, strict: bool | None) -> bool:
    if strict is not None:
        return strict
    if config is None:
        from skillyard.client.config import load_config

        config = load_config()
    return config.install_strict


def judge(package, *, where: str, strict: bool, with_lines: bool = False, withdrawn=(),
          advise: str | None = None) -> list[str]:
    """Refuse on any safety error (or, with strict, any tolerated one too); return the tolerated ones as warnings.
    A limit error names the config key that raises it; an error the skill's own, unreviewed, security exception
    would have allowed says so. `advise`: the ref `skill validate` takes for these bytes (default `where`)."""
    tolerated = [f for f in package.findings if f.rule in TOLERATED_RULES and str(f.severity) != "info"]
    refusing = [f for f in package.errors if f.rule not in TOLERATED_RULES] + (tolerated if strict else [])
    if refusing:
        lines = summarize_errors(refusing, with_lines=with_lines)
        keys = sorted({LIMIT_KEYS[f.rule] for f in refusing if f.rule in LIMIT_KEYS})
        if keys:
            fix = (f"This is over the client's install limit: if you trust the skill, raise `{keys[0]}` in the "
                   f"client's config.yaml (or set ${env_name(keys[0])}).")
        elif {(f.rule, f.file) for f in withdrawn} & {(f.rule, f.file) for f in refusing}:
            from skillyard.client.accept import hint
            from skillyard.format.exceptions import UNTRUSTED_FIX

            fix = UNTRUSTED_FIX + hint(refusing, advise or where)
        elif strict and all(f.rule in TOLERATED_RULES for f in refusing):
            fix = "Runtimes tolerate this; install without --strict (and `install.strict: false`) to accept it."
        else:
            from skillyard.client.accept import hint

            fix = f"`skill validate {advise or where}` lists and explains each finding." + hint(refusing, advise or where)
        raise SkillyardError(f"{where} is not a valid skill: {lines}; nothing was installed.", fix)
    return [f"{where}: {f.file or '.'}: {f.message} (runtimes tolerate it; `--strict` refuses it)"
            for f in tolerated]


def folder_name(name: object, *, where: str, strict: bool, fallback: str | None = None) -> tuple[str, list[str]]:
    """The installed folder's name for a skill `name`, and a warning when it is not the name itself.

    A standard name is its own folder. An odd name runtimes tolerate (`Odd_Name`, `PDF Tools`: one plain
    component, no path, no control or invisible character) installs as its slug (`odd-name`, cut to 64 characters
    at a hyphen), so two names that differ only by case never meet on a case-insensitive disk; a name with no
    letters or digits in ASCII (`文档助手`) installs under its source folder's name (`fallback`) when that is a
    standard name. `--strict` refuses all of these. Anything else is refused."""
    from skillyard.format.paths import component_problem, is_hidden, path_problem
    from skillyard.format.slug import ascii_slug  # the shared rule; cut below at a hyphen, not mid-word

    try:
        return store.check_name(name), []
    except SkillyardError as exc:
        refusal = exc
    slug = ""
    if (isinstance(name, str) and len(name) <= 4 * store.MAX_NAME and "/" not in name and not is_hidden(name)
            and not component_problem(name) and not path_problem(name)):
        slug = ascii_slug(name)
        if len(slug) > store.MAX_NAME:  # cut at the last hyphen within the limit, else at the limit
            cut = slug[:store.MAX_NAME]
            if slug[store.MAX_NAME] != "-" and "-" in cut:
                cut = cut.rsplit("-", 1)[0]
            slug = cut.strip("-")
        if (not slug or not store.NAME_RE.match(slug)) and fallback and len(fallback) <= store.MAX_NAME \
                and store.NAME_RE.match(fallback) and not component_problem(fallback):
            slug = fallback
    if not slug or not store.NAME_RE.match(slug) or component_problem(slug):
        raise SkillyardError(f"{where}: SKILL.md `name`: {refusal.message}; nothing was installed.",
                             "Rename the skill to lowercase letters, digits and hyphens in SKILL.md (and its "
                             "folder).") from None
    if strict:
        raise SkillyardError(f"{where}: SKILL.md `name` {name!r} is not a standard skill name (lowercase letters, "
                             "digits and single hyphens); nothing was installed.",
                             f"Runtimes tolerate it (it would install as `{slug}`); install without --strict to "
                             f"accept it, or rename the skill to `{slug}`.")
    return slug, [f"{where}: SKILL.md `name` {name!r} is not a standard skill name; installed as `{slug}` "
                  "(runtimes tolerate it; `--strict` refuses it)"]


def env_name(key: str) -> str:
    from skillyard.client.config import _ENV_KEYS

    return _ENV_KEYS[key][0]


# The client's cap on what one install downloads, sized like `npx skills` (10 MiB); named in refusals.
DOWNLOAD_KEY, DOWNLOAD_ENV = "install.max_download_bytes", "SKILL_INSTALL_MAX_DOWNLOAD_BYTES"


def download_cap(config) -> int:
    """The client's download cap (`Config.install_max_download_bytes`)."""
    if config is None:
        from skillyard.client.config import load_config

        config = load_config()
    return config.install_max_download_bytes


def over_download_cap(what: str, size: str, cap: int) -> SkillyardError:
    return SkillyardError(f"{what}: the download is {size}, over the client's limit of {cap:,} bytes; nothing was "
                          "installed.", f"If you trust it, raise `{DOWNLOAD_KEY}` in the client's config.yaml (or set "
                          f"${DOWNLOAD_ENV}).")


def check_entry_limits(skill: dict, config, *, what: str) -> None:
    """A registry entry against the client's own limits, before any download: a registry's publishing policy is
    not the client's, and a hostile registry may list anything (`resolve.check_entry` bounds only what is sane)."""
    if config is None:
        from skillyard.client.config import load_config

        config = load_config()
    files = skill.get("files") or []
    total = sum(f["size"] for f in files)
    problems = []
    if len(files) > config.install_max_files:
        problems.append((f"it lists {len(files):,} files; the client installs at most {config.install_max_files:,}",
                         "install.max_files"))
    if total > config.install_max_total_bytes:
        problems.append((f"its files add up to {total:,} bytes; the client installs at most "
                         f"{config.install_max_total_bytes:,}", "install.max_total_bytes"))
    big = [f for f in files if f["size"] > config.install_max_file_bytes]
    if big:
        problems.append((f"{big[0]['path']} is {big[0]['size']:,} bytes; the client installs files of at most "
                         f"{config.install_max_file_bytes:,}", "install.max_file_bytes"))
    if problems:
        key = problems[0][1]
        raise SkillyardError(f"{what}: {'; '.join(p for p, _ in problems)}; nothing was installed.",
                             f"This is over the client's install limit: if you trust the skill, raise `{key}` in the "
                             f"client's config.yaml (or set ${env_name(key)}).")
    cap = download_cap(config)
    if total > cap:
        raise over_download_cap(what, f"{total:,} bytes", cap)


REQUIRE_VERIFIED_KEY = "install.require_verified"


def check_verified(skill: dict, config, *, what: str, commit: str | None = None) -> None:
    """With `install.require_verified` (or `--require-verified`), refuse a pointer entry whose pin no maintainer
    of its registry approved: `verified` not true, or (a lock being restored) a pinned commit other than the one
    the registry verified. The registry's own entries (no `source_url`) pass: their files are the registry's own,
    and every change to them was merged in its repository. Checked before any download."""
    if config is None:
        from skillyard.client.config import load_config

        config = load_config()
    if not config.install_require_verified or "source_url" not in skill:
        return
    pinned = str(skill.get("commit", ""))
    if skill.get("verified") is True and (commit is None or commit == pinned):
        return
    if skill.get("verified") is True:
        why = (f"the lock pins commit {commit[:12]}, but the registry verified {pinned[:12]}; a pin nobody "
               "approved is unverified")
    elif "verified" in skill:
        why = "no maintainer of the registry approved its pin (verified: false), e.g. an automerged bump"
    else:
        why = "the registry does not say its pin is verified (it was built before the `verified` field)"
    by_flag = REQUIRE_VERIFIED_KEY in getattr(config, "flags", {})  # --require-verified, not the setting
    cause = "--require-verified was given" if by_flag else f"the setting `{REQUIRE_VERIFIED_KEY}` is on"
    undo = ("run it again without --require-verified" if by_flag
            else f"turn the setting off with `skill config set {REQUIRE_VERIFIED_KEY} false`")
    raise SkillyardError(f"{what}: refused because {cause}: the skill lives in its own "
                         f"repository and {why}; nothing was installed.",
                         "Ask the registry's maintainers to approve the pin (approving the PR that sets it verifies "
                         f"it), pick a verified skill (`skill search` shows KIND), or, if you trust it, {undo}.")
