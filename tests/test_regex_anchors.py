"""Python's `$` also matches before a final line feed, so `NAME.match(value)` with `^...$` accepted "name\\n" (a
token variable, a skill name, a shard hash: each then reached a path, a header or a lockfile). Whole-value patterns
end with `\\Z`; this holds every module-level pattern in the package to it, so a new one cannot bring the hole back."""

from __future__ import annotations

import importlib
import pkgutil
import re

import skillyard


def _module_patterns():
    for info in pkgutil.walk_packages(skillyard.__path__, "skillyard."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                yield f"{info.name}.{name}", value


def _ends_with_bare_dollar(source: str) -> bool:
    body = source.rstrip(")")  # `(...)$)` still ends the value
    if not body.endswith("$"):
        return False
    backslashes = len(body[:-1]) - len(body[:-1].rstrip("\\"))
    return backslashes % 2 == 0  # `\$` is a literal dollar sign


def test_no_whole_value_pattern_ends_with_a_dollar_that_allows_a_final_line_feed():
    patterns = dict(_module_patterns())
    assert len(patterns) > 50  # the walk found the package's patterns
    offenders = sorted(name for name, pattern in patterns.items()
                       if isinstance(pattern.pattern, str) and not pattern.flags & re.MULTILINE
                       and _ends_with_bare_dollar(pattern.pattern))
    assert offenders == [], f"end these with \\Z (or use fullmatch and say why): {offenders}"


def test_the_check_sees_a_bare_dollar():
    assert _ends_with_bare_dollar(r"^[a-z]+$") and _ends_with_bare_dollar(r"^(a|b)$)"[:-1])
    assert not _ends_with_bare_dollar(r"^[a-z]+\Z") and not _ends_with_bare_dollar(r"cost \$")
