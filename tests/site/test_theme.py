"""The builder adds the packaged theme (templates, hooks, stylesheet) to any mkdocs.yml, so a registry's own config
names none of them and there is one copy of them, in the package."""

from __future__ import annotations

import pytest

from conftest import SKILLS, write_registry
from skillyard.errors import SkillyardError
from skillyard.site.builder import build_site


def _build(tmp_path, config_text: str, extra: dict[str, str] | None = None):
    root = tmp_path / "reg"
    root.mkdir()
    registry = write_registry(root, SKILLS[:2])
    config = root / "mkdocs.yml"
    config.write_text(config_text, encoding="utf-8")
    for rel, text in (extra or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    out = root / "_site"
    build_site(registry, root, out, config=config, work_dir=tmp_path / "work")
    return out


MINIMAL = "site_name: Team skills\ntheme:\n  name: material\n"


def test_a_config_naming_no_theme_files_gets_the_packaged_ones(tmp_path):
    out = _build(tmp_path, MINIMAL)
    home = (out / "index.html").read_text(encoding="utf-8")
    assert 'id="sy-search"' in home  # our search.html override
    assert 'http-equiv="Content-Security-Policy"' in home  # our hooks ran
    assert "assets/skillyard.css" in home and (out / "assets" / "skillyard.css").is_file()
    assert (out / "assets" / "search.js").is_file()
    name = SKILLS[0]["name"]
    page = (out / "skills" / name / "index.html").read_text(encoding="utf-8")
    assert 'http-equiv="Content-Security-Policy"' in page


def test_the_registry_overrides_win_over_the_packaged_theme(tmp_path):
    config = MINIMAL + "  custom_dir: mine\nextra_css:\n  - assets/skillyard.css\n"
    out = _build(tmp_path, config, {
        "mine/search.html": '{% extends "main.html" %}{% block content %}TEAM-SEARCH-MARKER{% endblock %}',
        "site/assets/skillyard.css": "/* TEAM-CSS-MARKER */\n",
    })
    home = (out / "index.html").read_text(encoding="utf-8")
    assert "TEAM-SEARCH-MARKER" in home and 'id="sy-search"' not in home
    assert home.count("assets/skillyard.css") == 1  # named once, not added twice
    assert "TEAM-CSS-MARKER" in (out / "assets" / "skillyard.css").read_text(encoding="utf-8")
    # Templates the registry does not override still come from the package (skill pages use generated.html).
    assert 'http-equiv="Content-Security-Policy"' in home
    assert (out / "skills" / SKILLS[0]["name"] / "index.html").is_file()


def test_a_theme_other_than_material_is_refused_clearly(tmp_path):
    with pytest.raises(SkillyardError, match="theme: 'mkdocs' is not supported") as info:
        _build(tmp_path, "site_name: x\ntheme:\n  name: mkdocs\n")
    assert "material" in info.value.fix
    assert not (tmp_path / "reg" / "_site").exists()


def test_registry_text_in_the_default_config_is_escaped(tmp_path, monkeypatch):
    """With no mkdocs.yml, the site takes its name, description and homepage from registry.json, which mkdocs
    puts into every page unescaped: a hostile name must stay text (no script, no CSP hash for it)."""
    import json

    root = tmp_path / "reg"
    root.mkdir()
    registry = write_registry(root, SKILLS[:1])
    data = json.loads(registry.read_text(encoding="utf-8"))
    data.update(name="Evil</title><script>alert(1)</script>", description='x" onload="alert(2)',
                homepage='https://e.invalid/"><script>alert(3)</script>')
    registry.write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    build_site(registry, root, root / "_site", work_dir=tmp_path / "work")
    for page in (root / "_site").rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "<script>alert(" not in text and 'onload="alert' not in text, page
    assert "Evil&lt;/title&gt;" in (root / "_site" / "index.html").read_text(encoding="utf-8")
