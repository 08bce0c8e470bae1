"""`skill generate`: ask an OpenAI-compatible chat-completions endpoint for a SKILL.md, and keep it only if valid.

The endpoint is the user's choice, in config (`generate.base_url`, `generate.model`, `generate.api_key_env`): any
server that speaks `POST <base_url>/chat/completions` (OpenAI, a local llama.cpp / vLLM / Ollama server, a
gateway). The key itself is never stored: config names the environment variable that holds it, and it is sent as
`Authorization: Bearer` through the client's one bounded HTTP helper (size, idle time and total time capped; the
key dropped on a redirect to another host). The answer is untrusted text: it is parsed, checked by the same
validator as `skill validate` (strict), and written into a new folder in one rename only when it passes; nothing is
ever overwritten.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from skillyard.errors import SkillyardError

MAX_REQUEST_CHARS = 4000
MAX_RESPONSE_BYTES = 1024 * 1024
DEFAULT_TIMEOUT = 120.0
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*\Z")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})[^\n]*\n(.*?)\n\1\s*\Z", re.S)

SYSTEM_PROMPT = """\
You write Agent Skills in the open SKILL.md format. Answer with the complete SKILL.md file and nothing else.
It starts with YAML frontmatter between `---` lines holding exactly these keys:
name: lower-case letters, digits and single hyphens, at most 64 characters;
description: one paragraph (at most 1024 characters) saying what the skill does and when to use it ("Use when ...").
After the frontmatter, write Markdown instructions an AI agent follows step by step: when to apply the skill,
the steps, what to check, and examples. Do not use `<` or `>` in the frontmatter. Do not invent scripts or files
the skill does not contain."""


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    model: str
    api_key_env: str | None
    timeout: float

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"


def endpoint_from_config(config) -> Endpoint:
    """The generate endpoint from config; a key stored in config is refused (it belongs in the environment)."""
    where = config.path
    section = config.get("generate") or {}
    if not isinstance(section, dict):
        raise SkillyardError(f"generate in {where} is not a mapping", "Set generate.base_url and generate.model.")
    for secret in ("api_key", "key", "token"):
        if secret in section:
            raise SkillyardError(f"generate.{secret} in {where} holds a secret; keys are never read from config",
                                 "Delete it, put the key in an environment variable and name that variable: "
                                 "`api_key_env: OPENAI_API_KEY` under `generate:`.")
    base_url, model = section.get("base_url"), section.get("model")
    if not base_url or not model:
        raise SkillyardError(f"no generate endpoint configured in {where} (generate.base_url and generate.model)",
                             "Add to that file: `generate:` with `base_url: https://api.openai.com/v1` (any "
                             "OpenAI-compatible server), `model: <model name>` and `api_key_env: <variable name>`.")
    key_env = section.get("api_key_env")
    if key_env is not None and not (isinstance(key_env, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key_env)):
        raise SkillyardError(f"generate.api_key_env in {where} is {key_env!r}, not an environment variable's name",
                             "Set it to the variable's name, e.g. OPENAI_API_KEY (never the key itself).")
    timeout = section.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 600:
        raise SkillyardError(f"generate.timeout in {where} is {timeout!r}", "Set it to seconds, 1 to 600.")
    from skillyard.client.urls import check_url

    check_url(str(base_url), what="generate.base_url")
    return Endpoint(str(base_url), str(model), key_env, float(timeout))


def request_body(description: str, model: str) -> dict:
    """The chat-completions request (pure)."""
    return {"model": model, "temperature": 0.2,
            "messages": [{"role": "system", "content": SYSTEM_PROMPT},
                         {"role": "user", "content": f"Write the SKILL.md for a skill that does this:\n\n{description}"}]}


def skill_md_from(payload: object) -> str:
    """The SKILL.md text in a chat-completions answer: the first choice's message, without a code fence (pure)."""
    try:
        content = payload["choices"][0]["message"]["content"]  # type: ignore[index]
    except (KeyError, IndexError, TypeError):
        raise ValueError("the answer has no choices[0].message.content") from None
    if not isinstance(content, str) or not content.strip():
        raise ValueError("the answer's message is empty")
    fenced = _FENCE.match(content)
    text = fenced.group(2) if fenced else content.strip()
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate is valid JSON but no file can hold it
        raise ValueError("the answer's message is not valid Unicode text") from None
    return text.rstrip("\n") + "\n"


def ask(endpoint: Endpoint, description: str) -> str:
    """POST the request and return the SKILL.md text the model wrote."""
    from skillyard.client import http

    description = description.strip()
    if not description:
        raise SkillyardError("nothing to generate: the description is empty",
                             'Say what the skill should do: skill generate "Summarise CSV files ...".')
    if len(description) > MAX_REQUEST_CHARS:
        raise SkillyardError(f"the description has {len(description)} characters; the limit is {MAX_REQUEST_CHARS}",
                             "Shorten it to what the skill does and when to use it.")
    token = None
    if endpoint.api_key_env:
        token = os.environ.get(endpoint.api_key_env, "").strip()
        if not token:
            raise SkillyardError(f"${endpoint.api_key_env} is empty (generate.api_key_env)",
                                 f"Export {endpoint.api_key_env} with the endpoint's API key.")
    body = json.dumps(request_body(description, endpoint.model)).encode("utf-8")
    response = http.fetch(endpoint.url, token=token, json_body=body, accept="application/json", retries=1,
                          timeout=endpoint.timeout, deadline=endpoint.timeout, max_bytes=MAX_RESPONSE_BYTES)
    try:
        return skill_md_from(json.loads(response.body))
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError; a nesting bomb recurses
        raise SkillyardError(f"{http.safe_url(endpoint.url)} did not answer like a chat-completions API ({exc})",
                             "Check generate.base_url (it should end before /chat/completions) and "
                             "generate.model.") from None


def skill_name(text: str) -> str:
    """The `name` the generated SKILL.md declares, checked before it is used as a folder name."""
    from skillyard.format.frontmatter import parse_skill_md

    name = parse_skill_md(text).data.get("name")
    if not isinstance(name, str) or len(name) > 64 or not _NAME.match(name):
        raise SkillyardError(f"the generated SKILL.md has no usable name ({str(name)[:80]!r}); nothing was written",
                             "Run `skill generate` again, or give --name.")
    return name


def with_name(text: str, name: str) -> str:
    """The SKILL.md with its frontmatter `name` replaced (for --name); the validator checks the result."""
    if len(name) > 64 or not _NAME.match(name):
        raise SkillyardError(f"--name {name!r} is not a skill name",
                             "Use lower-case letters, digits and single hyphens, at most 64 characters.")
    return re.sub(r"(?m)\A(---\s*\n(?:.*\n)*?)name:[^\n]*", lambda m: f"{m.group(1)}name: {name}", text, count=1)


def _refuse(errors: list):
    problems = "; ".join(f"line {f.line}: {f.message}" if f.line else f.message for f in errors[:8])
    raise SkillyardError(f"the generated SKILL.md is not valid ({len(errors)} error(s)): {problems}; nothing was "
                         "written", "Run `skill generate` again with a clearer description, or --dry-run to see it.")


def check(text: str) -> list:
    """Every error the strict validator finds in `text` as a skill's SKILL.md (in a scratch folder; for --dry-run)."""
    from skillyard.format import Policy, load_skill

    name = skill_name(text)
    with tempfile.TemporaryDirectory(prefix="skill-generate-") as scratch:
        (Path(scratch) / name).mkdir()
        (Path(scratch) / name / "SKILL.md").write_text(text, encoding="utf-8")
        return load_skill(Path(scratch) / name, Policy(strict=True)).errors


def save(text: str, parent: Path) -> tuple[Path, list]:
    """Validate `text` as a new skill folder and move it to `parent/<name>` in one rename; never overwrite.

    Returns (folder, warnings). Raises with every error when the validator refuses it; nothing is left behind.
    """
    from skillyard.format import Policy, load_skill

    name = skill_name(text)
    parent = Path(parent)
    dest = parent / name
    if os.path.lexists(dest):
        raise SkillyardError(f"{dest} already exists; nothing was written",
                             "Choose another --out folder, or --name, or move the existing folder.")
    errors = check(text)
    if errors:  # refused before --out is even created; checked again below on the bytes that are moved
        _refuse(errors)
    parent.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=".skill-generate-", dir=parent))
    try:
        (temp / name).mkdir()
        (temp / name / "SKILL.md").write_text(text, encoding="utf-8")
        package = load_skill(temp / name, Policy(strict=True))
        if not package.valid:
            _refuse(package.errors)
        try:
            os.mkdir(dest)  # claims the name: fails if it appeared meanwhile
        except FileExistsError:
            raise SkillyardError(f"{dest} already exists; nothing was written",
                                 "Choose another --out folder, or --name.") from None
        os.rename(temp / name, dest)  # replaces only the empty folder made just above
        return dest, [f for f in package.findings if not f.is_error]
    finally:
        shutil.rmtree(temp, ignore_errors=True)
