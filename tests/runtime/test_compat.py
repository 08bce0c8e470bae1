import jsonschema

from skillyard.registry.compat import BEGIN, END, agents_md_block, marketplace_json

# Claude Code's documented marketplace.json shape (code.claude.com plugin-marketplaces): name, owner.name and
# plugins[].name/source are required; relative sources start with "./"; `$schema` is not accepted.
MARKETPLACE = {
    "type": "object",
    "required": ["name", "owner", "plugins"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$",
                 "not": {"enum": ["claude-code-marketplace", "claude-code-plugins", "claude-plugins-official",
                                  "anthropic-marketplace", "anthropic-plugins", "agent-skills", "life-sciences"]}},
        "owner": {"type": "object", "required": ["name"],
                  "properties": {"name": {"type": "string", "minLength": 1}, "email": {"type": "string"},
                                 "url": {"type": "string"}}, "additionalProperties": False},
        "metadata": {"type": "object", "additionalProperties": False,
                     "properties": {"description": {"type": "string"}, "version": {"type": "string"},
                                    "pluginRoot": {"type": "string"}}},
        "plugins": {"type": "array", "items": {
            "type": "object", "required": ["name", "source"],
            "properties": {
                "name": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"},
                "source": {"type": "string", "pattern": r"^\./"},
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


def test_agents_md_block_lists_every_skill():
    block = agents_md_block(REGISTRY)
    assert block.startswith(BEGIN + "\n## Skills\n") and block.endswith(END + "\n")
    assert "- **csv-profiler** (`skills/data/csv-profiler/SKILL.md`): Profile CSV files." in block
    assert "- **pdf-tools** (`skills/pdf-tools/SKILL.md`): Fill and merge PDFs \\| forms. Use for PDFs." in block
    assert block.index("csv-profiler") < block.index("pdf-tools")
    assert agents_md_block(REGISTRY) == block
    assert "_No skills yet._" in agents_md_block(dict(REGISTRY, skills=[]))
