"""Issue 32 item 6: site/pages/own-registry.md's recipe, run as the page writes it, installs a skill from the served
folder, for a registry on GitHub (`--repository`) and for a static host (`--host static`).

The page's shell blocks are read from the page itself: the first ("One command makes it"), then "Serve it
yourself"; their lines run in bash as written, except `pip install` (this venv is the install), the server (the
test starts `python -m http.server` itself, on a free port that replaces 8000) and `npx skills` (tests/interop).
Before this change the GitHub variant served a registry.json that sent the client to raw.githubusercontent.com
for a repository that does not exist, so the install failed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.site.test_served_tree import Server, env_for, run

pytestmark = pytest.mark.slow

PAGE = Path(__file__).resolve().parents[2] / "site" / "pages" / "own-registry.md"


def blocks() -> list[str]:
    page = PAGE.read_text(encoding="utf-8")
    return [part.split("```")[0] for part in page.split("```sh\n")[1:]]


def recipe() -> tuple[list[str], list[str], list[str]]:
    """(making the registry, building the served folder, the client's lines) as the page writes them."""
    found = blocks()
    make = next(b for b in found if "skillyard init-registry" in b).splitlines()
    serve = next(b for b in found if "--static-host" in b and "http.server" in b).splitlines()
    server = next(i for i, line in enumerate(serve) if "http.server" in line)
    make = [line for line in make if not line.startswith("pip install")]
    client = [line for line in serve[server + 1:] if not line.startswith("npx ")]
    return make, serve[:server], client


@pytest.mark.parametrize("host", ["github", "static"])
def test_the_recipe_installs_from_the_served_folder(tmp_path, host):
    make, build, client = recipe()
    assert any("--repository acme/team-skills" in line for line in make), make
    assert client[-1] == "skill install changelog-entry" and "8000/registry.json" in client[0]
    if host == "static":  # the page's other host: the same lines with `--host static` (the Options table)
        make = [line.replace("--repository acme/team-skills", "--host static") for line in make]
    env = env_for(tmp_path)
    run(["bash", "-euc", "\n".join(make)], tmp_path, env)
    root = tmp_path / "team-skills"
    built = run(["bash", "-euc", "\n".join(build)], root, env)
    served = json.loads((root / "_site" / "registry.json").read_text(encoding="utf-8"))
    own = json.loads((root / "registry.json").read_text(encoding="utf-8"))
    assert served["repository"]["raw_url_template"] == "{path}"  # where the folder serves the files
    if host == "github":
        assert own["repository"]["raw_url_template"] == \
            "https://raw.githubusercontent.com/acme/team-skills/{commit}/{path}"  # the repository's is unchanged
        assert "the served registry.json fetches your skills' files from this folder" in built.stdout + built.stderr
        assert served["skills"] == own["skills"]
    else:
        assert served == own
    server = Server(root / "_site")
    try:
        port = server.url.rsplit(":", 1)[1]
        done = run(["bash", "-euc", "\n".join(client).replace("8000", port)], root, env)
    finally:
        server.stop()
    assert "installed changelog-entry" in done.stdout
    folder = Path(env["HOME"]) / ".agents" / "skills" / "changelog-entry"
    for rel in ("SKILL.md", "skill.yaml"):
        assert (folder / rel).read_bytes() == (root / "skills" / "changelog-entry" / rel).read_bytes()


def test_a_github_registry_the_folder_cannot_serve_whole_keeps_the_code_host_and_says_why(tmp_path):
    """A skill with an HTML file is never served from the site's origin: pointing the served registry.json at the
    folder would make it uninstallable there, so the code host's template stays and the build's note says why and
    what to do instead."""
    from tests.site.test_served_tree import GIT_ENV, WIDGET_MD, WIDGET_YAML, write_skill

    env = env_for(tmp_path)
    run(["skillyard", "init-registry", "gh", "--repository", "acme/gh"], tmp_path, env)
    root = tmp_path / "gh"
    write_skill(root / "skills" / "html-widget", {"SKILL.md": WIDGET_MD.encode(), "skill.yaml": WIDGET_YAML.encode(),
                                                   "assets/widget.html": b"<p>status</p>\n"})
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-qm", "x"]):
        run(argv, root, {**env, **GIT_ENV})
    run(["skillyard", "build"], root, env)
    built = run(["skillyard", "site", "build", "--static-host", "--out", "_site"], root, env)
    served = json.loads((root / "_site" / "registry.json").read_text(encoding="utf-8"))
    assert served["repository"]["raw_url_template"].startswith("https://raw.githubusercontent.com/acme/gh/")
    said = built.stdout + built.stderr
    assert "still fetches every skill's files from https://raw.githubusercontent.com" in said
    assert "html-widget" in said and 'host = "static"' in said and "--serve-dir" in said
