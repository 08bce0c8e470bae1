"""The bytes `skill install` would judge for a `github:` ref or an archive, fetched by the install's own readers and
not judged here, so `skill validate github:…` explains, finding by finding, the refusal an install printed (the
advice of every install refusal names that command)."""

from __future__ import annotations

from skillyard.errors import SkillyardError


def is_remote(ref: str) -> bool:
    from skillyard.client import archive

    return ref.startswith("github:") or archive.is_archive_ref(ref)


def fetch(ref_text: str, config) -> tuple[str, str, dict[str, tuple[bytes, bool]]]:
    """(where, the folder's last name, {path: (bytes, executable)}) of a `github:` ref or an archive file."""
    from skillyard.client import archive, github
    from skillyard.client.fetch import download_capped, github_token
    from skillyard.client.install_policy import download_cap

    if ref_text.startswith("github:"):
        ref = github.parse_ref(ref_text)
        url = github.tarball_url(config.github_codeload_url, ref, None)
        data = download_capped(url, config, token=github_token(config), what=f"github:{ref.slug}")
        folder, files, commit, _ = github.skill_snapshot(data, ref)
        where = f"github:{ref.slug}/{folder}".rstrip("/") + (f"@{ref.ref}" if ref.ref != "HEAD" else "")
        name = folder.rsplit("/", 1)[-1] if folder else ref.repo
    else:
        split = archive.split_ref(ref_text)
        if split is None:
            raise SkillyardError(f"{ref_text} is not an archive file.", "Give a .zip, .tar.gz, .tgz or .tar file.")
        path, inner = split
        folder, files, _ = archive.skill_files(path.resolve(), inner, max_bytes=download_cap(config))
        where = f"{path}/{folder}".rstrip("/")
        name = folder.rsplit("/", 1)[-1] if folder else path.name.split(".")[0]
    return where, name, files


def folder_name(name: str) -> str:
    """A name safe to make the private check folder from (the folder's own when it is a plain name)."""
    from skillyard.format.paths import component_problem, is_hidden

    return name if name and not component_problem(name) and not is_hidden(name) and len(name) <= 128 else "skill"


def materialize(name: str, files: dict[str, tuple[bytes, bool]]):
    """(the temporary directory, the skill folder in it holding `files`): the folder is removed with the returned
    object, so a command keeps it for as long as it reads the folder."""
    import tempfile
    from pathlib import Path

    scratch = tempfile.TemporaryDirectory(prefix="skill-validate-")
    folder = Path(scratch.name) / folder_name(name)
    for rel, (content, executable) in files.items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        target.chmod(0o755 if executable else 0o644)
    folder.mkdir(exist_ok=True)
    return scratch, folder
