"""JSON Schemas of the providers' documented tool-definition shapes, written from their API references.

- OpenAI Chat Completions `tools[]`: {type: "function", function: {name, description?, parameters?, strict?}};
  name a-z, A-Z, 0-9, underscores and dashes, at most 64; parameters a JSON Schema object.
- OpenAI Responses `tools[]` function tool: {type: "function", name, description?, parameters, strict} (the SDK's
  FunctionToolParam marks `strict` Required).
- Anthropic Messages `tools[]`: {name (^[a-zA-Z0-9_-]{1,64}$), description?, input_schema: {type: "object", ...}}.
- Gemini `Tool.function_declarations[]`: FunctionDeclaration {name (starts with a letter or underscore; letters,
  digits, underscores, dots, colons, dashes; at most 64), description, parameters: Schema} where Schema.type is one
  of the OpenAPI-subset Type values (upper case, lower case accepted) and parameter names match
  ^[A-Za-z_][A-Za-z0-9_]{0,63}$.
"""

NAME = {"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$"}

JSON_SCHEMA_OBJECT = {
    "type": "object",
    "required": ["type"],
    "properties": {"type": {"const": "object"}, "properties": {"type": "object"},
                   "required": {"type": "array", "items": {"type": "string"}}},
}

OPENAI_CHAT_TOOL = {
    "type": "object",
    "required": ["type", "function"],
    "additionalProperties": False,
    "properties": {
        "type": {"const": "function"},
        "function": {
            "type": "object",
            "required": ["name"],
            "additionalProperties": False,
            "properties": {"name": NAME, "description": {"type": "string"}, "parameters": JSON_SCHEMA_OBJECT,
                           "strict": {"type": ["boolean", "null"]}},
        },
    },
}

OPENAI_RESPONSES_TOOL = {
    "type": "object",
    "required": ["type", "name", "parameters", "strict"],
    "additionalProperties": False,
    "properties": {"type": {"const": "function"}, "name": NAME, "description": {"type": "string"},
                   "parameters": JSON_SCHEMA_OBJECT, "strict": {"type": ["boolean", "null"]}},
}

ANTHROPIC_TOOL = {
    "type": "object",
    "required": ["name", "input_schema"],
    "additionalProperties": False,
    "properties": {"name": NAME, "description": {"type": "string"}, "input_schema": JSON_SCHEMA_OBJECT,
                   "cache_control": {"type": "object"}},
}

_GEMINI_TYPES = ["TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"]

GEMINI_SCHEMA = {
    "$defs": {
        "schema": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "type": {"enum": _GEMINI_TYPES + [t.lower() for t in _GEMINI_TYPES]},
                "format": {"type": "string"},
                "description": {"type": "string"},
                "nullable": {"type": "boolean"},
                "enum": {"type": "array", "items": {"type": "string"}},
                "properties": {"type": "object", "additionalProperties": {"$ref": "#/$defs/schema"},
                               "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]{0,63}$"}},
                "required": {"type": "array", "items": {"type": "string"}},
                "items": {"$ref": "#/$defs/schema"},
            },
        }
    },
    "type": "object",
    "required": ["function_declarations"],
    "additionalProperties": False,
    "properties": {
        "function_declarations": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$"},
                    "description": {"type": "string"},
                    "parameters": {"$ref": "#/$defs/schema"},
                },
            },
        }
    },
}
