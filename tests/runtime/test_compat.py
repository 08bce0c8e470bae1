import jsonschema

from skillyard.format.claude_names import OFFICIAL_MARKETPLACES
from skillyard.registry.compat import BEGIN, END, agents_md_block, marketplace_json

# Claude Code's documented marketplace.json shape (code.claude.com plugin-marketplaces): name, owner.name and
# plugins[].name/source are required; relative sources start with "./"; `$schema` is not accepted.
MARKETPLACE = {
    "type": "object",
    "required": ["name", "owner", "plugins"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$",
                 "not": {"enum": sorted(OFFICIAL_MARKETPLACES)}},
        "owner": {"type": "object", "required": ["name"],
                  "properties": {"name": {"type": "string", "minLength": 1}, "email": {"type": "string"},
                                 "url": {"type": "string"}}, "additionalProperties": False},
        "metadata": {"type": "object", "additionalProperties": False,
                     "properties": {"description": {"type": "string"}, "version": {"type": "string"},
                                    "pluginRoot": {"type": "string"}}},
        "plugins": {"type": "array", "items": {
            "type": "object", "required": ["name", "source"],
            "properties": {
                "name": {"type": "string", "pattern": r"^[a-z0-9]+(-[a-z0-9]+)*(\.skill)?$"},
                "source": {"oneOf": [
                    {"type": "string", "pattern": r"^\./"},
                    {"type": "object", "required": ["source", "url", "path", "sha"], "additionalProperties": False,
                     "properties": {"source": {"const": "git-subdir"}, "url": {"type": "string", "pattern": r"^https://"},
                                    "path": {"type": "string", "pattern": r"^[^./]"},
                                    "sha": {"type": "string", "pattern": "^[0-9a-f]{40}$"}}},
                    {"type": "object", "required": ["source", "url", "sha"], "additionalProperties": False,
                     "properties": {"source": {"const": "url"}, "url": {"type": "string", "pattern": r"^https://"},
                                    "sha": {"type": "string", "pattern": "^[0-9a-f]{40}$"}}}]},
                "description": {"type": "string"}, "version": {"type": "string"},
                "author": {"type": "object", "required": ["name"]}, "license": {"type": "string"},
                "homepage": {"type": "string"}, "keywords": {"type": "array", "items": {"type": "string"}},
                "strict": {"type": "boolean"},
                "skills": {"type": "array", "items": {"type": "string", "pattern": r"^\./"}},
            }}},
    },
}

REGISTRY = {
    "schema_version": "1.0", "name": "Acme Skills", "description": "Skills for the Acme team.",
    "homepage": "https://acme.github.io/skills/",
    "repository": {"url": "https://github.com/acme/skills", "slug": "acme/skills",
                   "raw_url_template": "https://raw.githubusercontent.com/acme/skills/{commit}/{path}"},
    "skills": [
        {"name": "pdf-tools", "description": "Fill and merge PDFs | forms.\nUse for PDFs.", "version": "1.2.0",
         "tags": ["pdf"], "author": "octocat", "license": "MIT", "path": "skills/pdf-tools"},
        {"name": "csv-profiler", "description": "Profile CSV files.", "version": "0.1.0", "tags": [],
         "author": "acme", "license": "Apache-2.0", "path": "skills/data/csv-profiler"},
    ],
}


def test_marketplace_matches_claude_code_shape():
    document = marketplace_json(REGISTRY)
    jsonschema.validate(document, MARKETPLACE)
    assert document["name"] == "acme-skills"
    assert document["owner"] == {"name": "acme", "url": "https://github.com/acme"}
    assert [p["name"] for p in document["plugins"]] == ["csv-profiler", "pdf-tools"]
    pdf = document["plugins"][1]
    assert pdf == {"name": "pdf-tools", "description": "Fill and merge PDFs | forms.\nUse for PDFs.",
                   "source": "./skills/pdf-tools", "strict": False, "skills": ["./"], "version": "1.2.0",
                   "author": {"name": "octocat"}, "license": "MIT", "keywords": ["pdf"]}
    # Each plugin's source is its own skill folder: installing one copies that skill, not the repository.
    assert document["plugins"][0]["source"] == "./skills/data/csv-profiler"


def test_reserved_marketplace_name_is_avoided():
    document = marketplace_json(dict(REGISTRY, name="Agent Skills"))
    assert document["name"] == "agent-skills-registry"
    jsonschema.validate(document, MARKETPLACE)


PIN = "6abccd60c704f669423d6a06ff0809fa39513ce8"
POINTER = {"name": "agents-md", "description": "Writes AGENTS.md.", "version": "0.0.1", "path": "skills/agents-md",
           "commit": PIN, "source_url": "https://github.com/getsentry/skills",
           "source": {"host": "github", "repository": "getsentry/skills", "tracks": "HEAD"}}


def test_a_pointer_plugin_is_the_upstream_skill_folder_at_the_pin():
    """Claude Code's git-subdir: only that folder is fetched, and it is the plugin root, so the upstream
    repository's own .claude-plugin/plugin.json is not part of the plugin (no "conflicting manifests")."""
    document = marketplace_json(dict(REGISTRY, skills=[*REGISTRY["skills"], POINTER]))
    jsonschema.validate(document, MARKETPLACE)
    [plugin] = [p for p in document["plugins"] if p["name"] == "agents-md"]
    assert plugin["source"] == {"source": "git-subdir", "url": "https://github.com/getsentry/skills.git",
                                "path": "skills/agents-md", "sha": PIN}
    assert plugin["strict"] is False and plugin["skills"] == ["./"]


def test_a_pointer_to_a_skill_at_the_repository_root_names_the_repository():
    document = marketplace_json(dict(REGISTRY, skills=[dict(POINTER, path="")]))
    jsonschema.validate(document, MARKETPLACE)
    assert document["plugins"][0]["source"] == {"source": "url", "url": "https://github.com/getsentry/skills.git",
                                                "sha": PIN}


def test_a_skill_whose_name_claude_code_reserves_gets_another_plugin_name():
    skill = dict(POINTER, name="claude-settings-audit", path="skills/claude-settings-audit")
    document = marketplace_json(dict(REGISTRY, skills=[skill]))
    jsonschema.validate(document, MARKETPLACE)
    [plugin] = document["plugins"]
    assert plugin["name"] == "settings-audit.skill"
    assert plugin["source"]["path"] == "skills/claude-settings-audit"  # the skill itself keeps its name


def test_agents_md_block_lists_every_skill():
    block = agents_md_block(REGISTRY)
    assert block.startswith(BEGIN + "\n## Skills\n") and block.endswith(END + "\n")
    assert "- **csv-profiler** (`skills/data/csv-profiler/SKILL.md`): Profile CSV files." in block
    assert "- **pdf-tools** (`skills/pdf-tools/SKILL.md`): Fill and merge PDFs \\| forms. Use for PDFs." in block
    assert block.index("csv-profiler") < block.index("pdf-tools")
    assert agents_md_block(REGISTRY) == block
    assert "_No skills yet._" in agents_md_block(dict(REGISTRY, skills=[]))
