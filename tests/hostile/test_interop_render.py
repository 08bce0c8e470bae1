"""Interop outputs under attack. Placeholder rendering: a skill's default (or a user's value) repeated by many
placeholders must not turn a small file into gigabytes, on any of the paths that render (install, emit, the site's
well-known copy). marketplace.json: a plugin `source` is copied whole by Claude Code, so it never leaves the
repository.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillyard.errors import SkillyardError
from skillyard.format.inputs import MAX_RENDERED, PLACEHOLDER, RenderTooLarge, render, spell


def test_amplification_is_refused_before_the_text_is_built():
    text = "{{inputs.x}}" * 100_000  # 1.2 MB of placeholders
    with pytest.raises(RenderTooLarge) as caught:
        render(text, {"x": "y" * 64 * 1024})  # would be 6.5 GB
    assert isinstance(caught.value, SkillyardError) and f"{MAX_RENDERED:,}" in caught.value.message


def test_emit_refuses_an_amplifying_value_with_nothing_written(tmp_path):
    from skillyard.cli.main import skill_main

    folder = tmp_path / "amp"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: amp\ndescription: Amplifies. Use never.\n---\n"
                                     + "{{inputs.x}}" * 1000 + "\n", encoding="utf-8")
    (folder / "skill.yaml").write_text('schema_version: "1.0"\ninputs:\n  - name: x\n    type: string\n',
                                       encoding="utf-8")
    code = skill_main(["emit", str(folder), "--target", "agents", "--out", str(tmp_path / "out"),
                       "--input", "x=" + "y" * 60_000])
    assert code != 0
    assert not (tmp_path / "out" / "amp").exists()


names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,5}", fullmatch=True)
values = st.one_of(st.text(alphabet=st.characters(blacklist_characters="{}"), max_size=20), st.integers(),
                   st.booleans(), st.none())


@given(st.lists(st.one_of(st.text(max_size=10), names.map(lambda n: "{{inputs." + n + "}}")), max_size=12),
       st.dictionaries(names, values, max_size=4), st.integers(min_value=0, max_value=200))
def test_render_fills_every_known_placeholder_and_keeps_the_bound(parts, given_values, limit):
    text = "".join(parts)
    assert render(text, {}) == text
    try:
        out = render(text, given_values, limit=limit)
    except RenderTooLarge:
        assert len(render(text, given_values)) > limit  # refused only when really over the bound
        return
    assert len(out) <= limit
    left = {m.group(1) for m in PLACEHOLDER.finditer(out)}
    assert not left & set(given_values)  # nothing known stays raw
    assert left == {m.group(1) for m in PLACEHOLDER.finditer(text)} - set(given_values)
    assert all(spell(v) in out for n, v in given_values.items() if "{{inputs." + n + "}}" in text)


@pytest.mark.parametrize("path", ["../outside", "skills/../../etc", "/abs/skill", "C:/x", "skills/a\x00b",
                                  "skills/\u202egnp.exe"])
def test_a_plugin_source_outside_the_repository_is_refused(path):
    from skillyard.registry.compat import marketplace_json

    registry = {"name": "acme", "skills": [{"name": "evil", "description": "d", "path": path}]}
    with pytest.raises(SkillyardError) as caught:
        marketplace_json(registry)
    assert "marketplace.json" in caught.value.message and caught.value.fix
