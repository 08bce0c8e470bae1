"""Which name a skill's files give it, against the name it is installed under (issue 24 item 5).

A runtime knows a skill by the `name` its SKILL.md declares, not by its folder: a registry entry `beta` whose
SKILL.md says `name: gamma` would introduce itself to every agent as `gamma`, the way a hostile registry passes for
a trusted skill. Registry installs refuse that outright; a folder the user asked for by path only warns (unless
strict), because runtimes tolerate a name that differs from its folder and published skills do it.
"""

from __future__ import annotations

from skillyard.client.store import StagedFile
from skillyard.errors import SkillyardError
from skillyard.format.inputs import RENDERED_FILES as RENDERED

MANIFEST = "skill.yaml"


def check_declared_name(files: list[StagedFile], expected: str, *, what: str, source: str,
                        renamed_from: str | None = None) -> list[str]:
    """Refuse a registry entry whose SKILL.md (or, without one, skill.yaml) does not call itself `expected`: a
    runtime knows a skill by the name it declares, so a hostile registry could otherwise install `beta` that
    introduces itself as a trusted `gamma`. A name that cannot be read counts as different: another runtime's
    laxer reader might still find one.

    `renamed_from`: a pointer entry's `source.declared_name`, the upstream name a registry says openly it renamed
    (`skillyard external add --name`). Files that declare exactly that name are installed under `expected`, with
    a warning (returned) saying which name agents will know the skill by; any other name is still refused."""
    declared = _declared_names(files)
    if declared and all(name == expected for _, name in declared):
        return []
    if renamed_from and declared and all(name in (expected, renamed_from) for _, name in declared):
        from skillyard.format.safety import visible

        shown = visible(renamed_from, one_line=True)[:80]
        return [f"{what}: installed as `{expected}`, the registry's name for it; its SKILL.md calls it `{shown}`, "
                f"the name agents know it by (the registry renamed the upstream skill)"]
    file, name = next(((f, n) for f, n in declared if n != expected), ("SKILL.md", None))
    from skillyard.format.safety import visible

    says = f"names itself `{visible(name, one_line=True)[:80]}`" if isinstance(name, str) and name \
        else "gives no `name` that can be read"
    raise SkillyardError(f"{what}: the registry lists the skill as `{expected}`, but its {file} {says} (source "
                         f"{source}); nothing was installed.",
                         "A skill must call itself by the name it is installed under, or it could pass for another "
                         "skill: report it to the registry's maintainers.")


def requested_name_differs(requested: str | None, declared: str, installed_as: str, *, where: str,
                           strict: bool) -> list[str]:
    """A warning (with --strict / `install.strict`: a refusal) when the folder a user asked for (`github:o/r/x/beta`,
    `ARCHIVE/beta`) holds a skill that calls itself something else: it is installed, and known to agents, by its
    own name. Runtimes tolerate a name that differs from its folder (the standard asks for them to match), and
    published skills do it (a folder `oauth` holding `zoom-oauth`), so only --strict refuses."""
    from skillyard.format.slug import ascii_slug

    if not requested or installed_as in (requested, ascii_slug(requested)):
        return []
    from skillyard.format.safety import visible

    said = visible(declared, one_line=True)[:80]
    text = (f"{where}: you asked for `{visible(requested, one_line=True)}`, but its SKILL.md names the skill "
            f"`{said}`")
    if strict:
        raise SkillyardError(f"{text}; nothing was installed.",
                             f"Check the path; if `{said}` is the skill you want, install without --strict (and "
                             "`install.strict: false`) to accept it.")
    return [f"{text}: it is installed as `{installed_as}` (`--strict` refuses this)"]


def _declared_names(files: list[StagedFile]) -> list[tuple[str, object]]:
    """(file, `name` as parsed, None when unreadable) of SKILL.md, and of skill.yaml when it has a `name` or there
    is no SKILL.md: each is what some runtime or client will call the skill."""
    from skillyard.format import parse_skill_md
    from skillyard.format.manifest import parse_manifest

    out: list[tuple[str, object]] = []
    for item in files:
        try:
            text = item.data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if item.path in RENDERED:
            data = parse_skill_md(text, file=item.path).data if text is not None else {}
            out.append((item.path, data.get("name")))
        elif item.path == MANIFEST:
            manifest = parse_manifest(text, file=item.path)[0] if text is not None else None
            if manifest is None or "name" in manifest or not any(f.path in RENDERED for f in files):
                out.append((item.path, (manifest or {}).get("name")))
    return out
