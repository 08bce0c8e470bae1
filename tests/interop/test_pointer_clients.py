"""Real clients on a registry with a pointer entry (issue 26): a skill that lives in its own repository, served by
the GitHub stand-in on 127.0.0.1 (tests/support/gitserver.py) as a real git repository.

The registry is made as an operator makes one: `skillyard init-registry`, `skillyard external add` against the
stand-in, a commit, `skillyard build`, and `skillyard site build --fetch-upstream` (the publish workflow's
networked build, here reaching only the stand-in). Then:
- `npx skills` installs the pointer skill from the site's `/.well-known/agent-skills/` tree, byte for byte the
  upstream files at the pinned commit;
- Claude Code, the current release and the oldest we support (CLAUDE_PINS), installs AND loads the pointer
  skill's plugin, whose marketplace entry names a `git-subdir` source (the skill's folder, pinned by `sha`): Claude
  Code clones `https://github.com/<repo>.git` partially and sparsely, which git sends to a smart-HTTP server on
  127.0.0.1 (over HTTPS with a throwaway CA: 2.1.332 refuses a partial clone's lazy fetch over http) through
  `url.<base>.insteadOf` in the config GIT_CONFIG_GLOBAL names (tests/interop/githttp.py).
  Upstream has the shape getsentry/skills and obra/superpowers have: its own `.claude-plugin/plugin.json` and
  marketplace.json at the root. With a `github` source that plugin.json made the plugin fail to load
  ("conflicting manifests"); a control test keeps that entry and shows the load check catches it. Upstream has a
  newer commit by then, so the bytes prove the pin was honoured, and the plugin holds the skill's files only.
  CLAUDE_CODE_PLUGIN_PREFER_HTTPS=1 keeps Claude Code from probing `ssh git@github.com` first (it would leave the
  machine).
"""

from __future__ import annotations

import http.server
import json
import threading
from functools import partial
from pathlib import Path

import pytest
from tests.interop.clients import (
    CLAUDE_PINS,
    NPM,
    claude_binary,
    claude_env,
    npm_install,
    plugin_loaded,
    plugin_skills,
    run,
    skillyard_bin,
)
from tests.interop.githttp import redirect_github, serve
from tests.support.gitserver import GitServer, git
from tests.support.loopback import LoopbackHTTPServer

SKILL_MD = ("---\nname: alpha\ndescription: Does alpha things. Use when the user asks for alpha.\nlicense: MIT\n---\n"
            "# Alpha\n\nThe upstream alpha body.\n")
# The repository's own plugin manifests, as getsentry/skills ships them: a plugin.json at the root (which made a
# whole-repository plugin conflict with our entry) and a marketplace.json of its own.
PLUGIN_JSON = ('{\n  "name": "up-skills",\n  "description": "Upstream skills for code review, commits, and more",\n'
               '  "author": {\n    "name": "Up"\n  }\n}\n')
UPSTREAM_MARKETPLACE = ('{"name": "up-skills", "owner": {"name": "Up"}, '
                        '"plugins": [{"name": "up-skills", "source": "./"}]}\n')
FILES = {"skills/alpha/SKILL.md": SKILL_MD, "skills/alpha/references/notes.md": "# Alpha notes\n",
         "skills/beta/SKILL.md": SKILL_MD.replace("alpha", "beta"), "README.md": "upstream\n",
         ".claude-plugin/plugin.json": PLUGIN_JSON, ".claude-plugin/marketplace.json": UPSTREAM_MARKETPLACE}


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    server = GitServer(tmp_path_factory.mktemp("upstream")).start()
    server.create_repo("up", "skills", FILES)
    server.set_license("up", "skills", "MIT")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def pointer_registry(upstream, tmp_path_factory):
    """A registry with our one example skill and the pointer `alpha`, built and its site built with the network
    (the stand-in); upstream then moves on (a later commit changes SKILL.md), so only the pin has the old bytes."""
    base = tmp_path_factory.mktemp("pointer-registry")
    env = {"SKILL_GITHUB_API_URL": upstream.url, "SKILL_GITHUB_CODELOAD_URL": upstream.url,
           "SKILL_GITHUB_RAW_URL": upstream.url, "SKILLCLI_HOME": str(base / "skillcli"), "GITHUB_TOKEN": ""}
    root = base / "reg"
    steps = [
        ([skillyard_bin("skillyard"), "init-registry", str(root), "--repository", "acme/reg"], base),
        ([skillyard_bin("skillyard"), "external", "add", "github:up/skills/skills/alpha@main"], root),
        (["git", "init", "-q"], root), (["git", "add", "-A"], root),
        (["git", "-c", "user.name=interop", "-c", "user.email=interop@skillyard.invalid", "commit", "-qm", "reg"],
         root),
        ([skillyard_bin("skillyard"), "build", "--root", "."], root),
        ([skillyard_bin("skillyard"), "site", "build", "--root", ".", "--out", "_site", "--fetch-upstream"], root),
    ]
    for argv, cwd in steps:
        done = run(argv, cwd=cwd, env=env)
        assert done.returncode == 0, f"{argv}: {done.stdout}{done.stderr}"
    pinned = upstream.sha("up", "skills")
    upstream.commit("up", "skills", {"skills/alpha/SKILL.md": SKILL_MD.replace("upstream alpha", "NEWER alpha")})
    return root, pinned


@pytest.fixture(scope="module")
def site_url(pointer_registry):
    root, _ = pointer_registry

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = LoopbackHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(root / "_site")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def upstream_files(server: GitServer, commit: str) -> dict[str, bytes]:
    """The skill folder's files at `commit`, as git has them."""
    repo = server.repo_path("up", "skills")
    names = git(repo, "ls-tree", "-r", "--name-only", commit, "skills/alpha").decode().split()
    return {name.removeprefix("skills/alpha/"): git(repo, "show", f"{commit}:{name}") for name in names}


def installed_files(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
            and not str(p.relative_to(folder)).startswith(".")}


def test_npx_skills_installs_a_pointer_skill_from_the_site(node22, upstream, pointer_registry, site_url, tmp_path):
    cli = npm_install("skills") / "node_modules" / "skills" / "dist" / "cli.mjs"
    if not cli.is_file():
        pytest.skip(f"skills: {cli} is missing after npm install")
    root, pinned = pointer_registry
    index = json.loads((root / "_site/.well-known/agent-skills/index.json").read_text(encoding="utf-8"))
    assert "alpha" in [s["name"] for s in index["skills"]]  # the licence allows it and the hashes matched
    project = tmp_path / "project"
    project.mkdir()
    done = run([node22, cli, "add", site_url, "--skill", "alpha", "--agent", "codex", "--copy", "-y"], cwd=project,
               env={"HOME": str(tmp_path / "home"), "PATH": f"{node22.parent}:/usr/bin:/bin"}, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    got = installed_files(project / ".agents/skills/alpha")
    assert got == upstream_files(upstream, pinned)  # byte for byte upstream's files at the pin
    assert b"NEWER" not in got["SKILL.md"]


@pytest.fixture(scope="module", params=CLAUDE_PINS)
def claude(request, node22, upstream, tmp_path_factory):
    binary = claude_binary(request.param)
    home = tmp_path_factory.mktemp(f"{request.param}-pointer-home")
    httpd, git_url, log = serve(upstream, tls_dir=home / "tls")
    gitconfig = redirect_github(home / "redirect.gitconfig", git_url, httpd.ca_file)
    env = claude_env(home, node22, GIT_CONFIG_GLOBAL=str(gitconfig), GIT_CONFIG_NOSYSTEM="1",
                     GIT_SSL_CAINFO=str(httpd.ca_file),  # the environment's own would win over the config's
                     CLAUDE_CODE_PLUGIN_PREFER_HTTPS="1", GIT_TERMINAL_PROMPT="0")
    done = run([binary, "--version"], env=env, timeout=120)
    if done.returncode != 0:
        httpd.shutdown()
        pytest.skip(f"{NPM[request.param]}: `claude --version` failed: {(done.stdout + done.stderr).strip()[:300]}")
    call = lambda *args: run([binary, *args], env=env, timeout=300)  # noqa: E731
    call.home, call.git_log, call.pin = home, log, request.param
    yield call
    httpd.shutdown()
    httpd.server_close()


def test_claude_code_installs_and_loads_a_pointer_plugin_with_only_its_files_at_the_pin(claude, upstream,
                                                                                       pointer_registry):
    root, pinned = pointer_registry
    marketplace = json.loads((root / ".claude-plugin/marketplace.json").read_text(encoding="utf-8"))
    [plugin] = [p for p in marketplace["plugins"] if p["name"] == "alpha"]
    assert plugin["source"] == {"source": "git-subdir", "url": "https://github.com/up/skills.git",
                                "path": "skills/alpha", "sha": pinned}
    added = claude("plugin", "marketplace", "add", root)
    assert added.returncode == 0, added.stdout + added.stderr
    plugin_id = f"alpha@{marketplace['name']}"
    done = claude("plugin", "install", plugin_id)
    assert done.returncode == 0, done.stdout + done.stderr
    assert any(line.startswith("POST /up/skills.git/git-upload-pack") for line in claude.git_log)  # via our git
    loaded, install_path = plugin_loaded(claude, plugin_id)
    assert loaded, install_path
    skills = plugin_skills(claude, plugin_id)
    assert skills == ["alpha"] or (skills is None and claude.pin != "claude"), skills  # None: no `details`
    got = installed_files(Path(install_path))
    # the pinned commit's bytes, not the newer HEAD's; the skill's folder only: no plugin.json, README or beta
    assert got == upstream_files(upstream, pinned)
    hidden = sorted(str(p.relative_to(install_path)) for p in Path(install_path).rglob("*")
                    if str(p.relative_to(install_path)).startswith("."))
    assert not [h for h in hidden if h.startswith(".claude-plugin")], hidden  # nor the upstream's manifests


def test_the_load_check_catches_a_plugin_that_does_not_load(claude, upstream, pointer_registry, tmp_path):
    """Control: an entry like the one we wrote before (the whole repository, here as a `url` source, which 2.1.64
    too clones over https; the skill folder named in `skills`) installs, but the repository's plugin.json
    conflicts with it and Claude Code does not load it."""
    _, pinned = pointer_registry
    market = tmp_path / "old-market"
    (market / ".claude-plugin").mkdir(parents=True)
    entry = {"name": "alpha-whole", "description": "d", "strict": False, "skills": ["./skills/alpha"],
             "source": {"source": "url", "url": "https://github.com/up/skills.git", "sha": pinned}}
    (market / ".claude-plugin/marketplace.json").write_text(json.dumps(
        {"name": "old-market", "owner": {"name": "interop"}, "plugins": [entry]}), encoding="utf-8")
    assert claude("plugin", "marketplace", "add", market).returncode == 0
    done = claude("plugin", "install", "alpha-whole@old-market")
    assert done.returncode == 0, done.stdout + done.stderr  # "installed" ...
    loaded, why = plugin_loaded(claude, "alpha-whole@old-market")
    assert not loaded and "conflicting manifests" in why  # ... but not loaded
