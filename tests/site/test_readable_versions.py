"""Issue 37 item 3: a skill that declares no version shows its pinned commit and date, not `0.0.2026…`; the
machine version stays in the install pin, registry.json and the per-skill JSON."""

from __future__ import annotations

from tests.site.test_pointer_pages import _view_skill

from skillyard.site import pages, skill_api

TIME_VERSION = "0.0.20260819184126"


def test_a_versionless_pointer_page_shows_its_commit_and_date_and_pins_the_machine_version():
    html = pages.render_skill({}, _view_skill(version=TIME_VERSION), "")
    assert (f'<td class="sy-version" data-machine-version="{TIME_VERSION}">commit <code>{"a" * 12}</code> of '
            '<time datetime="2026-08-19">2026-08-19</time>') in html
    assert f"<code>skill install alpha@{TIME_VERSION}</code>" in html  # the pin is the machine version
    assert f"<td>{TIME_VERSION}</td>" not in html


def test_a_declared_version_is_shown_as_it_is():
    html = pages.render_skill({}, _view_skill(version="2.1.0"), "")
    assert '<td class="sy-version" data-machine-version="2.1.0">2.1.0</td>' in html


def test_the_json_keeps_the_machine_version_beside_the_shown_one():
    skill = _view_skill(version=TIME_VERSION, updated_at="2026-08-19T18:41:26Z", integrity="sha256-" + "0" * 64,
                        inventory={})
    document = skill_api.skill_document({"name": "R", "skills": [skill]}, skill)
    assert document["version"] == TIME_VERSION
    assert document["version_shown"] == {"label": f"{'a' * 12} · 2026-08-19", "date": "2026-08-19",
                                         "commit": "a" * 12, "machine": TIME_VERSION, "declared": False}
