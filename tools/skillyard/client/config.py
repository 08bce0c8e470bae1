"""The `skill` client's settings: `$SKILLCLI_HOME/config.yaml` (default `~/.skillcli/config.yaml`).

Interface used by the other client modules:

- `load_config(home=None) -> Config`: home is the argument, else `$SKILLCLI_HOME`, else `~/.skillcli`.
- `Config.sources`: `Source(name, url, token_env, priority)` sorted by priority, highest first (ties: the one
  added first wins). A source stores the *name* of the environment variable holding its token, never a token.
  The built-in default source (`BUILTIN_SOURCE_URL`, priority 0, below every source the user adds) is listed
  too, unless `default_source: false` in config.yaml (set by `skill source remove skillyard`) or
  `$SKILL_DEFAULT_SOURCE` is `none` (another URL there replaces the built-in one; the test suite uses that).
- `Config.get/set(dotted_key, ...)`, `save()` (atomic, under an `fcntl.flock` on `config.yaml.lock`), and
  `edit(home)`: lock, reload, change, save — the safe way for a command to change the file.
- Typed accessors: `github_raw_url`, `github_codeload_url`, `github_api_url` (environment overrides
  `SKILL_GITHUB_RAW_URL`, `SKILL_GITHUB_CODELOAD_URL`, `SKILL_GITHUB_API_URL` win over the file), `default_target`,
  `mcp_hub_endpoint`, `mcp_hub_timeout` (ms), `skill_inputs(name)`, `http_timeout`, `http_retries`, `http_deadline`, `registry_max_bytes`, `cache_ttl`,
  `cache_dir`.
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from skillyard.client.config_keys import KEYS
from skillyard.errors import SkillyardError
from skillyard.format.record import FrozenRecord  # not a dataclass: that import is ~15 ms of every command

DEFAULT_GITHUB_RAW_URL = "https://raw.githubusercontent.com"
DEFAULT_GITHUB_CODELOAD_URL = "https://codeload.github.com"
DEFAULT_GITHUB_API_URL = "https://api.github.com"

# The public Skillyard registry, read out of the box (as npm, brew and cargo read theirs). It is the published
# registry.json of the repository named in this project's pyproject.toml `[tool.skillyard] repository`; keep the two
# in step. `$SKILL_DEFAULT_SOURCE` overrides it (`none` turns it off; tests point it at a local server).
BUILTIN_SOURCE_URL = "https://raw.githubusercontent.com/skillyard/registry/main/registry.json"
BUILTIN_SOURCE_NAME = "skillyard"
BUILTIN_PRIORITY = 0
DEFAULT_SOURCE_ENV = "SKILL_DEFAULT_SOURCE"

# dotted config key -> (environment override, default), from the one table of keys (client/config_keys.py)
_ENV_KEYS = {name: (spec.env, spec.default) for name, spec in KEYS.items() if spec.env}

# Priority given to the first source; each later source gets PRIORITY_STEP less, so order of addition decides.
FIRST_PRIORITY = 100
PRIORITY_STEP = 10


class Source(FrozenRecord):
    """One registry the client reads: `url` is the registry.json URL; `token_env` names an env var (or None);
    `builtin`: the default source shipped with the client, not stored in config.yaml."""

    FIELDS = ("name", "url", "token_env", "priority", "builtin")

    def __init__(self, name: str, url: str, token_env: str | None = None, priority: int = FIRST_PRIORITY,
                 builtin: bool = False):
        for key, value in zip(self.FIELDS, (name, url, token_env, priority, builtin), strict=True):
            object.__setattr__(self, key, value)

    def to_dict(self) -> dict:
        data: dict = {"name": self.name, "url": self.url, "priority": self.priority}
        if self.token_env:
            data["token_env"] = self.token_env
        if self.builtin:
            data["builtin"] = True
        return data


def default_home() -> Path:
    env = os.environ.get("SKILLCLI_HOME")
    return Path(env).expanduser() if env else Path.home() / ".skillcli"


class Config:
    """The parsed config file plus where it lives; changes are in memory until `save()`."""

    def __init__(self, home: Path, data: dict | None = None):
        self.home = Path(home)
        self.path = self.home / "config.yaml"
        self.data: dict = data if data is not None else {}
        # Settings a command-line flag gives for this run only (`--require-verified`): they win over the
        # environment and the file, and are never saved.
        self.flags: dict = {}

    # ---- generic access -------------------------------------------------------------------------------------
    def get(self, dotted_key: str, default=None):
        """Value at `a.b.c`, with the environment override for the keys that have one."""
        env_name = _ENV_KEYS.get(dotted_key, (None, None))[0]
        if env_name and os.environ.get(env_name):
            return os.environ[env_name]
        node: object = self.data
        for part in dotted_key.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return copy.deepcopy(node)

    def set(self, dotted_key: str, value) -> None:
        """Set `a.b.c` (creating parents); `None` removes the key."""
        parts = dotted_key.split(".")
        node = self.data
        for part in parts[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                if value is None:
                    return
                child = node[part] = {}
            node = child
        if value is None:
            node.pop(parts[-1], None)
        else:
            node[parts[-1]] = value

    def _setting(self, key: str, kind):
        env_name, default = _ENV_KEYS[key]
        raw = self.get(key, default)
        try:
            return kind(raw)
        except (TypeError, ValueError):
            where = f"${env_name}" if os.environ.get(env_name) else f"{key} in {self.path}"
            noun = {int: "whole number", float: "number"}.get(kind, kind.__name__)
            raise SkillyardError(f"{where} is {raw!r}, expected a {noun}", _fix(key)) from None

    # ---- typed settings -------------------------------------------------------------------------------------
    @property
    def github_raw_url(self) -> str:
        return str(self._setting("github.raw_url", str)).rstrip("/")

    @property
    def github_codeload_url(self) -> str:
        return str(self._setting("github.codeload_url", str)).rstrip("/")

    @property
    def github_api_url(self) -> str:
        return str(self._setting("github.api_url", str)).rstrip("/")

    @property
    def http_timeout(self) -> float:
        return self._setting("http.timeout", float)

    @property
    def http_retries(self) -> int:
        return self._setting("http.retries", int)

    @property
    def http_backoff(self) -> float:
        return self._setting("http.backoff", float)

    @property
    def http_deadline(self) -> float:
        """Seconds one whole download may take, retries included (`http.deadline`, default 120): a server that
        drips bytes never trips the idle `http.timeout`."""
        return self._positive("http.deadline", float)

    @property
    def registry_max_bytes(self) -> int:
        """Largest registry.json accepted, as sent and decompressed (`registry.max_bytes`, default 50 MiB)."""
        return self._positive("registry.max_bytes", int)

    def _positive(self, key: str, kind):
        value = self._setting(key, kind)
        if value <= 0:
            raise SkillyardError(f"{key} is {value!r}; it must be greater than 0", _fix(key))
        return value

    @property
    def cache_ttl(self) -> float:
        """Seconds a fetched registry is used without asking the server again (`cache.ttl`, default 600)."""
        return self._setting("cache.ttl", float)

    @property
    def install_max_total_bytes(self) -> int:
        """Largest skill installed, all files together (`install.max_total_bytes`, default 25 MiB)."""
        return self._positive("install.max_total_bytes", int)

    @property
    def install_max_file_bytes(self) -> int:
        """Largest single file installed (`install.max_file_bytes`, default 10 MiB)."""
        return self._positive("install.max_file_bytes", int)

    @property
    def install_max_files(self) -> int:
        """Most files one installed skill may hold (`install.max_files`, default 1000)."""
        return self._positive("install.max_files", int)

    @property
    def install_max_download_bytes(self) -> int:
        """Largest download of one install: a `github:` tarball, a registry entry's files together, an archive
        file (`install.max_download_bytes`, default 10 MiB, as `npx skills` allows)."""
        return self._positive("install.max_download_bytes", int)

    @property
    def install_strict(self) -> bool:
        """Refuse standard violations runtimes tolerate, instead of warning (`install.strict`, default false)."""
        return self._switch("install.strict")

    @property
    def install_require_verified(self) -> bool:
        """Refuse pointer entries whose pin no maintainer approved (`install.require_verified`, default false;
        `--require-verified` for one run)."""
        if "install.require_verified" in self.flags:
            return bool(self.flags["install.require_verified"])
        return self._switch("install.require_verified")

    def _switch(self, key: str) -> bool:
        """A true/false setting (default false), written as a YAML/TOML boolean or as the words env vars use."""
        raw = self.get(key, False)
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off", ""):
            return False
        raise SkillyardError(f"{key} is {raw!r}, expected true or false", _fix(key))

    @property
    def default_target(self) -> str:
        return str(self.get("install.target", "claude-code"))

    @property
    def mcp_hub_endpoint(self) -> str | None:
        value = self.get("mcp_hub.endpoint")
        return str(value) if value else None

    @property
    def mcp_hub_timeout(self) -> int:
        """Milliseconds (`mcp_hub.timeout`, default 5000)."""
        value = self.get("mcp_hub.timeout", 5000)
        try:
            return int(value)
        except (TypeError, ValueError):
            raise SkillyardError(f"mcp_hub.timeout in {self.path} is {value!r}, expected milliseconds",
                                 _fix("mcp_hub.timeout")) from None

    def skill_inputs(self, name: str) -> dict:
        """Saved input values for one skill (`inputs.<skill>`), {} when none."""
        inputs = self.data.get("inputs")
        value = inputs.get(name) if isinstance(inputs, dict) else None
        return copy.deepcopy(value) if isinstance(value, dict) else {}

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    # ---- sources --------------------------------------------------------------------------------------------
    @property
    def stored_sources(self) -> list[Source]:
        """The sources config.yaml lists, highest priority first; ties keep the order they were added."""
        raw = self.data.get("sources") or []
        if not isinstance(raw, list):
            raise SkillyardError(f"`sources` in {self.path} must be a list", "Fix the file or delete it.")
        out = []
        for index, item in enumerate(raw):
            if not isinstance(item, dict) or not item.get("name") or not item.get("url"):
                raise SkillyardError(f"sources[{index}] in {self.path} needs a `name` and a `url`",
                                     "Fix the entry or remove it with `skill source remove`.")
            try:
                priority = int(item.get("priority", FIRST_PRIORITY - PRIORITY_STEP * index))
            except (TypeError, ValueError):
                raise SkillyardError(f"sources[{index}].priority in {self.path} is not a whole number",
                                     "Set it with `skill source priority NAME N`.") from None
            out.append((-priority, index, Source(str(item["name"]), str(item["url"]),
                                                 str(item["token_env"]) if item.get("token_env") else None,
                                                 priority)))
        return [source for _, _, source in sorted(out, key=lambda t: (t[0], t[1]))]

    @property
    def builtin_source(self) -> Source | None:
        """The built-in default source, or None when removed, turned off, or configured under its name or URL."""
        env = os.environ.get(DEFAULT_SOURCE_ENV)
        if env is not None and env.strip().lower() in ("", "none", "off", "false", "0"):
            return None
        if self.data.get("default_source") is False:
            return None
        url = env.strip() if env else BUILTIN_SOURCE_URL
        if any(s.name == BUILTIN_SOURCE_NAME or s.url == url for s in self.stored_sources):
            return None
        return Source(BUILTIN_SOURCE_NAME, url, None, BUILTIN_PRIORITY, builtin=True)

    @property
    def sources(self) -> list[Source]:
        """Every source, highest priority first: the stored ones, then (on a tie, after them) the built-in one."""
        stored = self.stored_sources
        builtin = self.builtin_source
        if builtin is None:
            return stored
        return [s for s in stored if s.priority >= builtin.priority] + [builtin] + \
            [s for s in stored if s.priority < builtin.priority]

    def source(self, name: str) -> Source:
        """The source with this name, or else with this URL (`skill source remove URL` works as well)."""
        for source in self.sources:
            if source.name == name:
                return source
        for source in self.sources:
            if source.url == name:
                return source
        known = ", ".join(s.name for s in self.sources) or "none"
        raise SkillyardError(f"no source named {name!r} (configured: {known})",
                             "List them with `skill source list`; give a source's name or its URL.")

    def next_priority(self) -> int:
        """Below every source the user added (the built-in default source stays below them all)."""
        existing = [s.priority for s in self.stored_sources]
        return min(existing) - PRIORITY_STEP if existing else FIRST_PRIORITY

    def top_priority(self) -> int:
        """Above every source: what `skill source add --default` gives."""
        existing = [s.priority for s in self.sources]
        return max(max(existing) + PRIORITY_STEP, FIRST_PRIORITY) if existing else FIRST_PRIORITY

    def put_source(self, source: Source) -> None:
        """Add or replace (by name) a source entry."""
        raw = [item for item in (self.data.get("sources") or []) if item.get("name") != source.name]
        raw.append(Source(source.name, source.url, source.token_env, source.priority).to_dict())
        self.data["sources"] = raw

    def remove_source(self, name: str) -> Source:
        """Remove a source by name or URL; removing the built-in one is remembered (`default_source: false`)."""
        source = self.source(name)
        if source.builtin:
            self.data["default_source"] = False
        else:
            self.data["sources"] = [item for item in self.data.get("sources") or [] if item.get("name") != source.name]
        return source

    # ---- persistence ----------------------------------------------------------------------------------------
    def save(self) -> None:
        """Write atomically (temp file + os.replace) while holding the config lock."""
        with _locked(self.home):
            self._write()

    def _write(self) -> None:
        import yaml

        from skillyard.fsutil import write_atomic

        text = yaml.safe_dump(self.data, sort_keys=True, allow_unicode=True, default_flow_style=False)
        write_atomic(self.path, text, mode=0o600, durable=True)


def _fix(key: str) -> str:
    """How to repair a bad value: the environment variable when it is the one set, else `skill config set`."""
    from skillyard.client.config_keys import KEYS, fix_for

    env = KEYS[key].env if key in KEYS else None
    if env and os.environ.get(env):
        return f"Set ${env} to a valid value (e.g. {KEYS[key].example}), or unset it."
    return fix_for(key)


@contextlib.contextmanager
def _locked(home: Path) -> Iterator[None]:
    home.mkdir(parents=True, exist_ok=True)
    with open(home / "config.yaml.lock", "a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def _read(path: Path) -> dict:
    """The parsed config file: from the JSON copy in the cache folder while config.yaml is unchanged (see
    client/config_cache.py), else parsed from the YAML and cached when it can be."""
    from skillyard.client import config_cache

    cache_file = path.parent / "cache" / config_cache.FILE_NAME
    try:
        before = os.stat(path)
    except FileNotFoundError:
        return {}
    except OSError:
        before = None  # reading it says why
    if before is not None:
        cached = config_cache.load(cache_file, config_cache.stamp(before))
        if cached is not None:
            return cached
    data = _parse(path)
    if before is not None:
        with contextlib.suppress(OSError):
            config_cache.store(cache_file, before, os.stat(path), data)
    return data


def _parse(path: Path) -> dict:
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise SkillyardError(f"cannot read {path}: {exc.strerror}", "Check the file's permissions.") from None
    try:
        from skillyard.format.yamlload import safe_load  # the one bounded YAML loader (size, depth, aliases)

        data = safe_load(text)
    except yaml.YAMLError as exc:
        raise SkillyardError(f"{path} is not valid YAML: {exc}", "Fix the file, or delete it to start over.") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SkillyardError(f"{path} must hold a mapping at the top level", "Fix the file, or delete it.")
    return data


def load_config(home: Path | None = None) -> Config:
    """Read the config (an absent file is an empty config)."""
    home = Path(home) if home is not None else default_home()
    return Config(home, _read(home / "config.yaml"))


@contextlib.contextmanager
def edit(home: Path | None = None) -> Iterator[Config]:
    """Lock, reload, let the caller change the config, then save — so concurrent commands don't lose edits."""
    home = Path(home) if home is not None else default_home()
    with _locked(home):
        config = Config(home, _read(home / "config.yaml"))
        yield config
        config._write()
