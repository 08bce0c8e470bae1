"""Every key of the `skill` client's config.yaml: its environment override, default, kind and valid range.

One table for client/config.py's typed settings, `skill config get|set|unset|list` (cli/skill_cmds/config.py) and
the README's "Client configuration" table (tests/client_core/test_config_cmd.py keeps the two in step). It imports
nothing of the client: client/config_values.py checks values (it needs the URL, target and name rules).
"""

from __future__ import annotations

import os

MIB = 1024 * 1024


class Key:
    """One setting: `kind` is url | seconds | count | bytes | bool | targets | choice | text | env-name | ms;
    numbers must lie in [low, high]; `example` is a valid value, shown in fixes."""

    __slots__ = ("name", "env", "default", "kind", "low", "high", "choices", "example", "meaning")

    def __init__(self, name: str, kind: str, default=None, *, env: str | None = None, low: float | None = None,
                 high: float | None = None, choices: tuple[str, ...] = (), example: str = "", meaning: str = ""):
        self.name, self.kind, self.default, self.env = name, kind, default, env
        self.low, self.high, self.choices, self.example, self.meaning = low, high, choices, example, meaning


_DAY = 86400.0
KEYS: dict[str, Key] = {k.name: k for k in (
    Key("github.raw_url", "url", "https://raw.githubusercontent.com", env="SKILL_GITHUB_RAW_URL",
        example="https://raw.githubusercontent.com", meaning="raw file host (GitHub Enterprise, tests)"),
    Key("github.codeload_url", "url", "https://codeload.github.com", env="SKILL_GITHUB_CODELOAD_URL",
        example="https://codeload.github.com", meaning="tarballs for github:owner/repo@ref installs"),
    Key("github.api_url", "url", "https://api.github.com", env="SKILL_GITHUB_API_URL",
        example="https://api.github.com", meaning="API for skill publish"),
    Key("http.timeout", "seconds", 15.0, env="SKILL_HTTP_TIMEOUT", low=0.1, high=3600, example="15",
        meaning="seconds without an answer before a request fails"),
    Key("http.retries", "count", 3, env="SKILL_HTTP_RETRIES", low=0, high=20, example="3",
        meaning="retries of 429/5xx answers and dropped connections"),
    Key("http.backoff", "seconds", 0.5, env="SKILL_HTTP_BACKOFF", low=0, high=60, example="0.5",
        meaning="first wait between retries (doubles each time)"),
    Key("http.deadline", "seconds", 120.0, env="SKILL_HTTP_DEADLINE", low=1, high=_DAY, example="120",
        meaning="limit for a whole download, retries included"),
    Key("cache.ttl", "seconds", 600, env="SKILL_CACHE_TTL", low=0, high=30 * _DAY, example="600",
        meaning="seconds a fetched registry (or an unreachable source) is remembered before asking again"),
    Key("registry.max_bytes", "bytes", 50 * MIB, env="SKILL_REGISTRY_MAX_BYTES", low=1024, high=4096 * MIB,
        example=str(50 * MIB), meaning="largest registry.json accepted"),
    Key("install.max_total_bytes", "bytes", 25 * MIB, env="SKILL_INSTALL_MAX_TOTAL_BYTES", low=1, high=4096 * MIB,
        example=str(25 * MIB), meaning="largest skill installed, all files together"),
    Key("install.max_file_bytes", "bytes", 10 * MIB, env="SKILL_INSTALL_MAX_FILE_BYTES", low=1, high=4096 * MIB,
        example=str(10 * MIB), meaning="largest single file in an installed skill"),
    Key("install.max_files", "count", 1000, env="SKILL_INSTALL_MAX_FILES", low=1, high=1_000_000, example="1000",
        meaning="most files one installed skill may hold"),
    Key("install.max_download_bytes", "bytes", 10 * MIB, env="SKILL_INSTALL_MAX_DOWNLOAD_BYTES", low=1,
        high=4096 * MIB, example=str(10 * MIB), meaning="largest download of one install"),
    Key("install.strict", "bool", False, env="SKILL_INSTALL_STRICT", example="true",
        meaning="refuse standard violations runtimes tolerate, instead of warning"),
    Key("install.require_verified", "bool", False, env="SKILL_INSTALL_REQUIRE_VERIFIED", example="true",
        meaning="refuse pointer entries whose pin no maintainer of their registry approved (verified: false)"),
    Key("install.target", "targets", "claude-code", example="claude-code,codex",
        meaning="default --target (one or more target names, comma-separated)"),
    Key("mcp_hub.endpoint", "url", None, example="http://127.0.0.1:8090",
        meaning="MCP hub where mcp_deps are checked"),
    Key("mcp_hub.timeout", "ms", 5000, low=1, high=600_000, example="5000", meaning="milliseconds to wait for the hub"),
    Key("mcp_hub.type", "choice", None, choices=("hub", "mcp"), example="mcp",
        meaning="hub (GET /tools/list) or mcp (an MCP server); unset: guessed from the endpoint"),
    Key("mcp.require_deps", "bool", False, example="true",
        meaning="refuse an install whose required MCP tools nothing can check (else: a warning, lock unchecked)"),
    Key("mcp.probe_servers", "bool", False, example="true",
        meaning="with no hub, start the local MCP servers of your home's agent settings to list their tools"),
    Key("mcp.probe_timeout", "ms", 30_000, low=1, high=600_000, example="30000",
        meaning="milliseconds one local MCP server may take to start and list its tools"),
    Key("mcp.allow_scripts", "bool", False, example="true",
        meaning="`skill mcp` offers run_script (each run still asks the user through the client)"),
    Key("mcp.script_timeout", "seconds", 60.0, low=1, high=3600, example="60",
        meaning="seconds a script run through `skill mcp` may take before it is killed"),
    Key("generate.base_url", "url", None, example="https://api.openai.com/v1",
        meaning="OpenAI-compatible endpoint for skill generate"),
    Key("generate.model", "text", None, example="gpt-4o-mini", meaning="model name for skill generate"),
    Key("generate.api_key_env", "env-name", None, example="OPENAI_API_KEY",
        meaning="the environment variable holding the API key (never the key)"),
    Key("generate.timeout", "seconds", 120.0, low=1, high=600, example="120", meaning="seconds for skill generate"),
)}
INPUTS_PREFIX = "inputs."
MANAGED = {"sources": "skill source add|remove|priority", "default_source": "skill source add|remove"}


def fix_for(key: str) -> str:
    spec = KEYS.get(key)
    example = spec.example if spec is not None else "VALUE"
    return f"Run `skill config set {key} {example}`, or `skill config unset {key}` for the default."


def origin(key: str, data_value, env_value: str | None) -> str:
    """Where a key's effective value comes from: `environment ($VAR)`, `config.yaml` or `default`."""
    spec = KEYS.get(key)
    if spec is not None and spec.env and env_value:
        return f"environment (${spec.env})"
    return "config.yaml" if data_value is not None else "default"


def env_value(key: str) -> str | None:
    spec = KEYS.get(key)
    return os.environ.get(spec.env) or None if spec is not None and spec.env else None
