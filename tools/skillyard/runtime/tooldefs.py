"""Function-tool definitions for the model providers, built from one neutral description per tool.

Each provider wants the same idea in a different envelope:
- OpenAI Chat Completions: `{"type": "function", "function": {"name", "description", "parameters"}}`;
- OpenAI Responses API: the flat `{"type": "function", "name", "description", "parameters"}`;
- Anthropic Messages API: `{"name", "description", "input_schema"}`;
- Gemini: `function_declarations` items `{"name", "description", "parameters"}` whose schema uses the OpenAPI
  subset with upper-case type names (OBJECT, STRING, ...) and no `additionalProperties`.
Pure data: nothing here touches the file system.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini")


@dataclass(frozen=True)
class ToolSpec:
    """A provider-neutral function tool: JSON-Schema `properties` limited to what every provider accepts."""

    name: str
    description: str
    properties: dict = field(default_factory=dict)
    required: tuple[str, ...] = ()

    def strict_compatible(self) -> bool:
        """True when OpenAI's strict mode accepts the schema: every property required, none added."""
        return set(self.required) == set(self.properties)

    def json_schema(self) -> dict:
        return {"type": "object", "properties": copy.deepcopy(self.properties), "required": list(self.required),
                "additionalProperties": False}


def read_skill_file_spec(skill_names: list[str] | None = None) -> ToolSpec:
    """Design 001 §5.2's tool: `read_skill_file{skill_name, file_path}`."""
    skill = {"type": "string", "description": "Name of the skill, as listed in <available_skills>."}
    if skill_names:
        skill["enum"] = sorted(skill_names)
    return ToolSpec(
        name="read_skill_file",
        description=("Read one file of an available skill: SKILL.md for its full instructions, or a file it "
                     "mentions such as references/guide.md. Paths are relative to the skill folder; the answer "
                     "starts with the skill's base directory. A file_path of \".\" (or a folder such as scripts/) "
                     "lists the files you can read."),
        properties={
            "skill_name": skill,
            "file_path": {"type": "string",
                          "description": "File path inside the skill folder, for example SKILL.md; \".\" lists "
                                         "the skill's files."},
        },
        required=("skill_name", "file_path"),
    )


CAPABILITY_SPECS: dict[str, ToolSpec] = {
    "read-file": ToolSpec(
        "read_file", "Read a text file from the user's workspace and return its contents.",
        {"path": {"type": "string", "description": "Path of the file to read."}}, ("path",)),
    "write-file": ToolSpec(
        "write_file", "Create or overwrite a text file in the user's workspace.",
        {"path": {"type": "string", "description": "Path of the file to write."},
         "content": {"type": "string", "description": "The complete new contents of the file."}},
        ("path", "content")),
    "http-request": ToolSpec(
        "http_request", "Send an HTTP request and return the status, headers and body of the response.",
        {"method": {"type": "string", "enum": ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"],
                    "description": "HTTP method; GET when omitted."},
         "url": {"type": "string", "description": "Absolute http(s) URL."},
         "headers": {"type": "array", "items": {"type": "string"},
                     "description": "Request headers as `Name: value` lines."},
         "body": {"type": "string", "description": "Request body, if any."}},
        ("url",)),
    "execute-code": ToolSpec(
        "code_interpreter", "Run a short program in a sandbox and return its standard output and errors.",
        {"language": {"type": "string", "enum": ["python", "bash"], "description": "Language of the code."},
         "code": {"type": "string", "description": "The program to run."}},
        ("language", "code")),
}


def openai_tool(spec: ToolSpec) -> dict:
    """Chat Completions shape."""
    return {"type": "function",
            "function": {"name": spec.name, "description": spec.description, "parameters": spec.json_schema()}}


def openai_responses_tool(spec: ToolSpec) -> dict:
    """Responses API shape: the function fields sit beside `type`.

    `strict` is required there (the SDK's FunctionToolParam). Strict mode needs every property listed in `required`,
    so a tool with optional arguments is sent with `strict: false` rather than with a schema the API would reject.
    """
    return {"type": "function", "name": spec.name, "description": spec.description,
            "parameters": spec.json_schema(), "strict": spec.strict_compatible()}


def anthropic_tool(spec: ToolSpec) -> dict:
    return {"name": spec.name, "description": spec.description, "input_schema": spec.json_schema()}


def _gemini_schema(schema: dict) -> dict:
    out: dict = {}
    for key, value in schema.items():
        if key == "type":
            out["type"] = str(value).upper()
        elif key == "properties":
            out["properties"] = {k: _gemini_schema(v) for k, v in value.items()}
        elif key == "items":
            out["items"] = _gemini_schema(value)
        elif key in ("description", "enum", "required", "nullable", "format"):
            out[key] = copy.deepcopy(value)
        # additionalProperties and other JSON-Schema keywords are outside Gemini's OpenAPI subset: dropped.
    return out


def gemini_declaration(spec: ToolSpec) -> dict:
    return {"name": spec.name, "description": spec.description, "parameters": _gemini_schema(spec.json_schema())}


_SHAPERS = {"openai": openai_tool, "openai-responses": openai_responses_tool, "anthropic": anthropic_tool,
            "gemini": gemini_declaration}


def tool_definition(spec: ToolSpec, provider: str) -> dict:
    try:
        return _SHAPERS[provider](spec)
    except KeyError:
        raise ValueError(f"unknown provider {provider!r}; choose one of {', '.join(PROVIDERS)}") from None


def read_skill_file_tool(provider: str, skill_names: list[str] | None = None) -> dict:
    """The ready `read_skill_file` tool for a provider (for Gemini: one function declaration)."""
    return tool_definition(read_skill_file_spec(skill_names), provider)
