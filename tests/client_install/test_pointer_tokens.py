"""Issue 33 item 6, least privilege: a token-protected registry's token goes to its own repository's paths, never
with requests for a pointer entry's upstream files (another repository); a private upstream is reached with the
user's own GitHub token (`SKILL_GITHUB_TOKEN`, else `GITHUB_TOKEN`). Checked in the GitHub stand-in's request log."""

from __future__ import annotations

from tests.client_install.test_pointer_install import pointer_registry  # noqa: F401 (fixture)
from tests.support.registry import registry_url


def _auth(requests) -> set:
    return {r.header("Authorization") for r in requests}


def test_the_registry_token_never_goes_to_the_upstream(git_server, pointer_registry, configure, skill_cli,  # noqa: F811
                                                       monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("SKILL_GITHUB_TOKEN", raising=False)
    git_server.require_token("acme", "reg", "reg-secret")
    monkeypatch.setenv("ACME_TOKEN", "reg-secret")
    configure.source("acme", registry_url(git_server, "acme", "reg"), token_env="ACME_TOKEN")
    git_server.clear_log()
    result = skill_cli("install", "alpha", "--json")
    assert result.code == 0, result.err
    own = git_server.requests("/acme/reg/")
    upstream = git_server.requests("/up/skills/")
    assert own and upstream
    assert _auth(own) == {"Bearer reg-secret"}  # the registry's own files carry its token
    assert _auth(upstream) == {None}  # the upstream's files carry none


def test_a_private_upstream_is_reached_with_the_users_github_token(git_server, pointer_registry, configure,  # noqa: F811
                                                                   skill_cli, monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    git_server.require_token("up", "skills", "user-gh")
    monkeypatch.setenv("ACME_TOKEN", "reg-secret")
    configure.source("acme", registry_url(git_server, "acme", "reg"), token_env="ACME_TOKEN")
    monkeypatch.delenv("SKILL_GITHUB_TOKEN", raising=False)
    refused = skill_cli("install", "alpha")
    assert refused.code != 0 and "reg-secret" not in refused.err
    monkeypatch.setenv("SKILL_GITHUB_TOKEN", "user-gh")
    git_server.clear_log()
    result = skill_cli("install", "alpha", "--json")
    assert result.code == 0, result.err
    assert _auth(git_server.requests("/up/skills/")) == {"Bearer user-gh"}
    assert "Bearer user-gh" not in _auth(git_server.requests("/acme/reg/"))


def test_the_token_goes_to_the_sources_own_repository_on_every_github_host(monkeypatch):
    from skillyard.client.config import Source
    from skillyard.client.tokens import repositories, token_for_url

    monkeypatch.setenv("ACME_TOKEN_T", "t")
    source = Source("acme", "https://raw.githubusercontent.com/Acme/Reg/main/registry.json", "ACME_TOKEN_T", 1)
    for url in ("https://raw.githubusercontent.com/acme/reg/abc/skills/x/SKILL.md",
                "https://codeload.github.com/acme/reg/tar.gz/abc", "https://api.github.com/repos/acme/reg/commits/x",
                "https://github.com/acme/reg.git"):
        assert token_for_url(source, url) == "t", url
    for url in ("https://raw.githubusercontent.com/up/skills/abc/SKILL.md", "https://api.github.com/repos/up/x",
                "https://api.github.com/user", "https://raw.githubusercontent.com/acme",
                "https://example.com/acme/reg/x"):
        assert token_for_url(source, url) is None, url
    assert repositories("https://api.github.com/acme/reg", None) == set()  # not a /repos/ path
