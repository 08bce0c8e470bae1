"""What the scheduled-workflow scenarios (test_bump.py, test_verify.py, test_release.py) need beyond harness.py.

- `Upstream`: the pointer skills' upstream repositories (../shared/upstream's real trees, served on 127.0.0.1 by
  tests/support/upstream_standin.py) and the runner environment that points the tools at them
  (SKILL_GITHUB_API_URL / _CODELOAD_URL / _RAW_URL, passed to act with `--env`, as a runner's environment would
  carry them; the workflow files are not touched). `change_pinned_file` rewrites one file at the pinned commit
  (tarball and tree), the upstream drift `external verify` must catch.
- `back_with_git`: the GitHub API stand-in's git data API (blobs, trees, commits, refs) writes real objects into
  the sandbox's bare origin, so a branch the bump bot creates through the API is a real branch that validate.yml
  can then check out, and a PR it opens lists the files git says it changes. Workflow dispatches are recorded
  (`POST .../actions/workflows/{file}/dispatches`, GitHub's answer 204) when the stand-in does not already.
- `gh_path`: the runner's `gh` (hosted runners ship it; this host has none): the harness's stand-in when it has
  one, else a minimal one for `gh workflow run` written here.
- `PypiUpload`: a PyPI legacy-upload endpoint on 127.0.0.1 that keeps what it is sent.
"""

from __future__ import annotations

import email.parser
import email.policy
import hashlib
import io
import os
import re
import subprocess
import tarfile
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from tests.support.gitserver import GIT_ENV
from tests.support.loopback import LoopbackHTTPServer
from tests.support.upstream_standin import SHARED_UPSTREAM, UpstreamStandin

HERE = Path(__file__).resolve().parent
BUMP_APP_TOKEN = "bump-app-token"          # SKILLYARD_BUMP_TOKEN: a GitHub App installation token
BUMP_APP_LOGIN = "skillyard-bump[bot]"


def upstream_absent_reason() -> str | None:
    if not (SHARED_UPSTREAM / "index.json").exists():
        return f"{SHARED_UPSTREAM} is absent: the pointer skills' real upstream trees are needed"
    return None


class Upstream:
    """The upstream stand-in for one scenario and the `--env` flags that send the tools to it."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.server = UpstreamStandin(tmp / "upstream").start()

    def stop(self) -> None:
        self.server.stop()

    @property
    def env(self) -> dict[str, str]:
        url = self.server.url
        return {"SKILL_GITHUB_API_URL": url, "SKILL_GITHUB_CODELOAD_URL": url, "SKILL_GITHUB_RAW_URL": url}

    def act_flags(self) -> tuple[str, ...]:
        out: list[str] = []
        for key, value in self.env.items():
            out += ["--env", f"{key}={value}"]
        return tuple(out)

    def sha(self, slug: str, which: str) -> str:
        return self.server.upstream(slug).sha(which)

    def change_pinned_file(self, slug: str, path: str, data: bytes) -> None:
        """Serve `path` at the pinned commit with `data`: a new codeload tarball (same top folder) and raw file."""
        tree = self.server.upstream(slug).trees["pin"]
        assert path in tree.files, f"{slug}@pin has no {path}"
        tree.files[path] = (data, tree.files[path][1])
        target = self.tmp / f"changed-{tree.sha}.tar.gz"
        with tarfile.open(tree.tarball, "r:gz") as src, tarfile.open(target, "w:gz") as out:
            top = src.getmembers()[0].name.split("/", 1)[0]
            for member in src.getmembers():
                if member.isfile() and member.name == f"{top}/{path}":
                    member.size = len(data)
                    out.addfile(member, io.BytesIO(data))
                else:
                    out.addfile(member, src.extractfile(member) if member.isfile() else None)
        tree.tarball = target


def readd_at(sandbox, upstream: Upstream, name: str, slug: str, folder: str, which: str,
             registry_block: str = "") -> None:
    """Pin skills/<name> at `which` ('older'), as a maintainer would with `skillyard external add`, append a
    `registry:` block (hand edits go there), and commit the result on main of the origin."""
    import shutil
    import sys

    tool = Path(os.environ.get("VIRTUAL_ENV") or Path(sys.executable).parent.parent) / "bin" / "skillyard"
    tool = str(tool) if tool.exists() else "skillyard"
    sandbox.git("checkout", "-q", "-B", "main", "origin/main")
    shutil.rmtree(sandbox.work / "skills" / name)
    ref = f"github:{slug}/{folder}@{upstream.sha(slug, which)}"
    env = {**os.environ, **upstream.env, "HOME": str(sandbox.tmp)}
    done = subprocess.run([tool, "external", "add", ref, "--track", "HEAD", "--root", "."], cwd=sandbox.work,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"external add {ref}: {done.stdout}{done.stderr}"
    if registry_block:
        with open(sandbox.work / "skills" / name / "source.yaml", "a", encoding="utf-8") as handle:
            handle.write(registry_block)


def push_main(sandbox, message: str) -> str:
    sandbox.git("add", "-A")
    sandbox.git("commit", "-q", "-m", message)
    sandbox.git("push", "-q", "origin", "main:main")
    sandbox.standin_sync_main()
    return sandbox.head("main")


# ---- the API stand-in's git data, backed by the bare origin ---------------------------------------------------
def _git(git_dir: Path, *args: str, data: bytes | None = None, env: dict | None = None) -> str:
    proc = subprocess.run(["git", f"--git-dir={git_dir}", *args], input=data, capture_output=True,
                          env={**GIT_ENV, **(env or {})}, check=False)
    if proc.returncode:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace')}")
    return proc.stdout.decode().strip()


def back_with_git(standin, repo, origin: Path) -> None:
    """Make `repo`'s git data API in `standin` read and write the bare `origin` (real object ids), mirror its
    `main`, and record workflow dispatches. Done by swapping the instance's class for a subclass, so it works
    whatever GitHubStandIn the fixture built."""
    from tests.bot.ghstub import StubError

    base = type(standin)
    if not getattr(base, "_git_backed", False):
        class GitBacked(base):
            _git_backed = True

            def _backing(self, r):
                return getattr(r, "_origin", None)

            def _create_blob(self, r, body):
                status, payload = super()._create_blob(r, body)
                if self._backing(r):
                    made = _git(self._backing(r), "hash-object", "-w", "--stdin", data=r.blobs[payload["sha"]])
                    assert made == payload["sha"]
                return status, payload

            def _create_tree(self, r, body):
                git_dir = self._backing(r)
                if git_dir is None:
                    return super()._create_tree(r, body)
                flat = dict(r.trees[body["base_tree"]]) if body.get("base_tree") else {}
                index = git_dir / f"api-index-{threading.get_ident()}"
                env = {"GIT_INDEX_FILE": str(index)}
                try:
                    if body.get("base_tree"):
                        _git(git_dir, "read-tree", body["base_tree"], env=env)
                    else:
                        _git(git_dir, "read-tree", "--empty", env=env)
                    for entry in body["tree"]:
                        if entry.get("sha") is None:
                            flat.pop(entry["path"], None)
                            _git(git_dir, "update-index", "--force-remove", entry["path"], env=env)
                            continue
                        if entry["sha"] not in r.blobs and entry["sha"] not in {e["sha"] for e in flat.values()}:
                            raise StubError(422, f"blob {entry['sha']} does not exist")
                        flat[entry["path"]] = {"mode": entry["mode"], "type": entry["type"], "sha": entry["sha"]}
                        _git(git_dir, "update-index", "--add", "--cacheinfo",
                             f"{entry['mode']},{entry['sha']},{entry['path']}", env=env)
                    sha = _git(git_dir, "write-tree", env=env)
                finally:
                    index.unlink(missing_ok=True)
                r.trees[sha] = flat
                return 201, self._tree_json(r, sha)

            def _create_git_commit(self, r, body):
                git_dir = self._backing(r)
                if git_dir is None:
                    return super()._create_git_commit(r, body)
                if body["tree"] not in r.trees or any(p not in r.commits for p in body.get("parents", [])):
                    raise StubError(422, "Tree or parent SHA does not exist")
                stamp = "2026-01-01T00:00:00Z"
                who = {"GIT_AUTHOR_NAME": "github-actions[bot]", "GIT_COMMITTER_NAME": "GitHub",
                       "GIT_AUTHOR_EMAIL": "41898282+github-actions[bot]@users.noreply.github.com",
                       "GIT_COMMITTER_EMAIL": "noreply@github.com", "GIT_AUTHOR_DATE": stamp,
                       "GIT_COMMITTER_DATE": stamp}
                parents = [arg for p in body.get("parents", []) for arg in ("-p", p)]
                sha = _git(git_dir, "commit-tree", body["tree"], *parents, "-m", body["message"], env=who)
                r.commits[sha] = {"date": stamp, "tree": body["tree"], "parents": body.get("parents", []),
                                  "message": body["message"]}
                return 201, self._git_commit_json(r, sha)

            def _create_ref(self, r, body):
                status, payload = super()._create_ref(r, body)
                if self._backing(r):
                    _git(self._backing(r), "update-ref", body["ref"], body["sha"])
                return status, payload

            def _update_ref(self, r, ref, body):
                status, payload = super()._update_ref(r, ref, body)
                if self._backing(r):
                    _git(self._backing(r), "update-ref", f"refs/{ref}", body["sha"])
                return status, payload

            def _create_pull(self, r, body, login):
                status, payload = super()._create_pull(r, body, login)
                git_dir = self._backing(r)
                if git_dir is not None:
                    pr = r.pulls[payload["number"]]
                    names = {"M": "modified", "A": "added", "D": "removed"}
                    base_sha = r.refs[f"heads/{pr.base_ref}"]
                    lines = _git(git_dir, "diff", "--name-status", "--no-renames", base_sha, pr.head_sha)
                    pr.files = [(line.split("\t", 1)[1], names[line[0]]) for line in lines.splitlines()]
                    _git(git_dir, "update-ref", f"refs/pull/{pr.number}/head", pr.head_sha)
                    payload = self._pull_json(r, pr)
                return status, payload

            def _contents(self, r, path, query):
                git_dir = self._backing(r)
                ref = query.get("ref", r.default_branch)
                if git_dir is not None and (ref, path) not in r.contents:
                    proc = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{ref}:{path}"],
                                          capture_output=True, env=GIT_ENV, check=False)
                    if proc.returncode == 0:
                        r.contents[(ref, path)] = proc.stdout
                return super()._contents(r, path, query)

            def dispatch(self, method, path, query, body, login):
                m = re.fullmatch(r"/repos/([^/]+)/([^/]+)/actions/workflows/([^/]+)/dispatches", path)
                if method == "POST" and m and not getattr(self, "_dispatch_workflow", None):
                    r = self._repo(m.group(1), m.group(2))
                    r.__dict__.setdefault("_dispatched", []).append(
                        {"workflow": m.group(3), "ref": body.get("ref"), "inputs": body.get("inputs") or {},
                         "login": login})
                    return 204, None
                return super().dispatch(method, path, query, body, login)

        standin.__class__ = GitBacked
    repo._origin = origin
    mirror_commit(repo, origin, _git(origin, "rev-parse", "refs/heads/main"))


def mirror_commit(repo, origin: Path, sha: str) -> None:
    """Put the origin's commit `sha` (and its whole tree, flat) into the stand-in's git data."""
    tree = _git(origin, "rev-parse", f"{sha}^{{tree}}")
    parents = _git(origin, "rev-list", "--parents", "-n", "1", sha).split()[1:]
    message = _git(origin, "log", "-1", "--format=%B", sha)
    date = _git(origin, "log", "-1", "--format=%cI", sha)
    flat = {}
    for line in _git(origin, "ls-tree", "-r", "--full-tree", tree).splitlines():
        meta, path = line.split("\t", 1)
        mode, kind, obj = meta.split()
        flat[path] = {"mode": mode, "type": kind, "sha": obj}
    repo.trees[tree] = flat
    repo.commits[sha] = {"date": date, "tree": tree, "parents": parents, "message": message}


def dispatched(standin, repo) -> list[dict]:
    """The workflow dispatches the jobs made (the stand-in's own record where it keeps one)."""
    events = getattr(standin, "events", None)
    if events is not None and getattr(standin, "_dispatch_workflow", None):
        return [e for e in events if e.get("event") == "workflow_dispatch"]
    return list(repo.__dict__.get("_dispatched", []))


# ---- the runner's gh ---------------------------------------------------------------------------------------
_GH = '''#!/usr/bin/env python3
"""`gh workflow run FILE --repo R [-f k=v]` as GitHub's CLI does it, against GITHUB_API_URL; nothing else."""
import json, os, sys, urllib.request
args = sys.argv[1:]
if args[:2] != ["workflow", "run"] or len(args) < 3:
    sys.exit(f"gh stand-in: not implemented: {args}")
workflow, rest, repo, inputs = args[2], args[3:], os.environ.get("GITHUB_REPOSITORY"), {}
while rest:
    flag = rest.pop(0)
    if flag in ("--repo", "-R"):
        repo = rest.pop(0)
    elif flag in ("-f", "-F", "--field", "--raw-field"):
        key, _, value = rest.pop(0).partition("=")
        inputs[key] = value
    else:
        sys.exit(f"gh stand-in: unknown flag {flag}")
token = os.environ.get("GH_TOKEN") or os.environ.get("GITHUB_TOKEN") or sys.exit("gh: set GH_TOKEN")
api = os.environ["GITHUB_API_URL"].rstrip("/")
def call(method, url, body=None):
    req = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        text = resp.read()
        return json.loads(text) if text else None
ref = call("GET", f"{api}/repos/{repo}")["default_branch"]
call("POST", f"{api}/repos/{repo}/actions/workflows/{workflow}/dispatches", {"ref": ref, "inputs": inputs})
print(f"Created workflow_dispatch event for {workflow} at {ref}", file=sys.stderr)
'''


def gh_path(tmp: Path) -> tuple[str, ...]:
    """`--env PATH=...` with a `gh` first: the harness's stand-in (standins/bin) when it has one, else ours."""
    folder = HERE / "standins" / "bin"
    if not (folder / "gh").exists():
        folder = tmp / "gh-bin"
        folder.mkdir(exist_ok=True)
        (folder / "gh").write_text(_GH)
        (folder / "gh").chmod(0o755)
    return ("--env", f"PATH={folder}:{os.environ.get('PATH', '/usr/bin:/bin')}")


# ---- PyPI's legacy upload endpoint -------------------------------------------------------------------------
class PypiUpload:
    """`POST /legacy/` (multipart, `:action=file_upload`, as twine sends it) on 127.0.0.1: keeps each file with its
    form fields and checks the digest it was sent with; answers 200 as PyPI does. `uploads` lists them."""

    def __init__(self):
        self.uploads: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                head = f"Content-Type: {self.headers.get('Content-Type')}\r\n\r\n".encode()
                message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
                fields, content, filename = {}, None, None
                for part in message.iter_parts():
                    name = part.get_param("name", header="content-disposition")
                    if name == "content":
                        content, filename = part.get_payload(decode=True), part.get_filename()
                    else:
                        fields[name] = part.get_content().strip() if part.get_content_maintype() == "text" \
                            else part.get_payload(decode=True).decode()
                ok = (content is not None and fields.get(":action") == "file_upload"
                      and fields.get("sha256_digest") == hashlib.sha256(content).hexdigest())
                if ok:
                    outer.uploads.append({"filename": filename, "fields": fields, "bytes": len(content),
                                          "authorization": self.headers.get("Authorization")})
                body = b"OK" if ok else b"400 bad upload"
                self.send_response(200 if ok else 400)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = LoopbackHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/legacy/"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# ---- release.yml's PyPI step and the packages its build step installs --------------------------------------
PYPI_PUBLISH = "pypa/gh-action-pypi-publish@dc37677b2e1c63e2034f94d8a5b11f265b73ba33"   # release.yml's pin
RELEASE_TOOLS = ("build>=1.2", "twine>=5", "setuptools>=69", "wheel")

_PUBLISH_ACTION = """\
# A stand-in for pypa/gh-action-pypi-publish (a Docker action, absent from ../shared/actions): the same inputs; it
# uploads every file of packages-dir to PyPI's legacy upload API the way twine does. The default repository-url
# (PyPI itself) is sent to $SKILLYARD_PYPI_STANDIN_URL instead. Trusted publishing: the run's OIDC token, when the
# runner provides one (ACTIONS_ID_TOKEN_REQUEST_URL, `id-token: write`), is the password; act provides none.
name: pypi-publish stand-in
description: Upload the distributions in packages-dir.
inputs:
  user: {default: __token__}
  password: {required: false, default: ""}
  repository-url: {default: "https://upload.pypi.org/legacy/"}
  packages-dir: {default: dist}
  verify-metadata: {default: "true"}
  skip-existing: {default: "false"}
  verbose: {default: "false"}
  print-hash: {default: "true"}
  attestations: {default: "true"}
runs:
  using: composite
  steps:
    - shell: bash
      run: python3 "$GITHUB_ACTION_PATH/upload.py"
      env:
        INPUT_USER: ${{ inputs.user }}
        INPUT_PASSWORD: ${{ inputs.password }}
        INPUT_REPOSITORY_URL: ${{ inputs.repository-url }}
        INPUT_PACKAGES_DIR: ${{ inputs.packages-dir }}
"""

_PUBLISH_SCRIPT = r'''
import base64, hashlib, json, os, re, sys, urllib.request, uuid
from pathlib import Path

url = os.environ["INPUT_REPOSITORY_URL"]
if url.rstrip("/") == "https://upload.pypi.org/legacy":
    url = os.environ.get("SKILLYARD_PYPI_STANDIN_URL") or sys.exit("::error::no PyPI stand-in URL")
password = os.environ.get("INPUT_PASSWORD") or ""
if not password:
    request_url = os.environ.get("ACTIONS_ID_TOKEN_REQUEST_URL")
    if request_url:
        req = urllib.request.Request(request_url + "&audience=pypi", headers={
            "Authorization": "bearer " + os.environ["ACTIONS_ID_TOKEN_REQUEST_TOKEN"]})
        password = json.load(urllib.request.urlopen(req, timeout=30))["value"]
    else:
        print("::notice::this runner offers no OIDC token (act); uploading with a placeholder token")
        password = "no-oidc-under-act"
files = sorted(p for p in Path(os.environ["INPUT_PACKAGES_DIR"]).iterdir() if p.suffix in (".gz", ".whl"))
if not files:
    sys.exit("::error::packages-dir holds no distributions")
auth = "Basic " + base64.b64encode(f"{os.environ['INPUT_USER']}:{password}".encode()).decode()
for path in files:
    data = path.read_bytes()
    m = re.match(r"(?P<name>[^-]+)-(?P<version>[^-]+?)(\.tar\.gz|-.*\.whl)$", path.name)
    fields = {":action": "file_upload", "protocol_version": "1", "name": m["name"], "version": m["version"],
              "filetype": "bdist_wheel" if path.suffix == ".whl" else "sdist",
              "pyversion": "py3" if path.suffix == ".whl" else "source",
              "sha256_digest": hashlib.sha256(data).hexdigest()}
    boundary = uuid.uuid4().hex
    body = b"".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
                    for k, v in fields.items())
    body += (f'--{boundary}\r\nContent-Disposition: form-data; name="content"; filename="{path.name}"\r\n'
             "Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    req = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": f"multipart/form-data; boundary={boundary}", "Authorization": auth})
    with urllib.request.urlopen(req, timeout=60) as resp:
        print(f"uploaded {path.name} ({len(data)} bytes): HTTP {resp.status}")
'''


def pypi_publish_standin(tmp: Path) -> tuple[str, ...]:
    """`--local-repository` for release.yml's pinned pypi-publish, pointing at the stand-in written under `tmp`."""
    folder = tmp / "gh-action-pypi-publish"
    folder.mkdir(exist_ok=True)
    (folder / "action.yml").write_text(_PUBLISH_ACTION)
    (folder / "upload.py").write_text(_PUBLISH_SCRIPT)
    return ("--local-repository", f"{PYPI_PUBLISH}={folder}")


def release_wheels(cache: Path) -> tuple[str, ...]:
    """The packages release.yml's build step installs (build, twine) and its isolated build needs (setuptools),
    downloaded once with pip into `cache` (pip's configured indexes), then given to the run as its only index:
    `--env PIP_NO_INDEX=1 PIP_FIND_LINKS=<cache>`, as a runner behind a package mirror would be set up. Nothing
    is fetched during the run."""
    import sys

    done = cache / ".complete"
    if not done.exists():
        cache.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check",
                               "-d", str(cache), *RELEASE_TOOLS], capture_output=True, text=True, timeout=600)
        if proc.returncode:
            raise RuntimeError(f"pip download {' '.join(RELEASE_TOOLS)} into {cache} failed:\n{proc.stderr[-2000:]}")
        done.write_text("ok\n")
    return ("--env", "PIP_NO_INDEX=1", "--env", f"PIP_FIND_LINKS={cache}")
