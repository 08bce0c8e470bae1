"""Issue 24 item 9: the registry.json and index.json a build writes validate against their schemas for generated
skills (names, descriptions, tags, versions, file names, bodies), and skills the build refuses leave no output."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillyard.format.schemas import schema_errors
from skillyard.registry.build import build_registry

names = st.from_regex(r"[a-z0-9]{1,20}(-[a-z0-9]{1,10}){0,3}", fullmatch=True)
prose = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), min_size=1, max_size=300)
skill = st.fixed_dictionaries({
    "description": prose,
    "version": st.sampled_from(["1.0.0", "0.1.0-rc.1", "10.20.30+build.5", "1.0", "x"]),
    "tags": st.lists(st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=40), max_size=6),
    "body": prose,
    "files": st.dictionaries(st.from_regex(r"[a-z]{1,8}(/[a-z]{1,8})?\.(md|txt|py)", fullmatch=True),
                             st.binary(max_size=200), max_size=4),
})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(names, skill, min_size=1, max_size=4))
def test_a_build_writes_outputs_that_match_their_schemas(skills) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "skillyard.toml").write_text('name = "gen"\nmode = "lenient"\n', encoding="utf-8")
        for name, spec in skills.items():
            folder = root / "skills" / name
            for rel, data in spec["files"].items():
                (folder / rel).parent.mkdir(parents=True, exist_ok=True)
                (folder / rel).write_bytes(data)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {json.dumps(spec['description'])}\n"
                                             f"---\n{spec['body']}\n", encoding="utf-8")
            (folder / "skill.yaml").write_text(
                f'schema_version: "1.0"\nversion: {json.dumps(spec["version"])}\ntags: {json.dumps(spec["tags"])}\n',
                encoding="utf-8")
        result = build_registry(root, skip_invalid=True, use_cache=False)
        if not result.outputs:
            return
        assert schema_errors("registry", json.loads(result.outputs["registry.json"])) == []
        assert schema_errors("index", json.loads(result.outputs["index.json"])) == []
