"""The install lines the user pages give are the routes tests/package/test_install_routes.py tries: none of them
installs `skillyard` by name from PyPI without saying that works only after the first release."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.package.conftest import REPO

PAGES = [REPO / "README.md", REPO / "site" / "pages" / "own-registry.md",
         REPO / "tools" / "skillyard" / "registry" / "init_template" / "README.md"]
INSTALL = re.compile(r"\b(?:pip|pipx|uv tool) install\s+(\"[^\"]*\"|'[^']*'|\S+)")
# What test_install_routes.py installs: a git URL (with or without [site]), a built wheel; by name, after a release.
FROM_GIT = re.compile(r'^"(?:skillyard(?:\[site\])? @ )?git\+https://github\.com/skillyard/registry"$')
FROM_WHEEL = re.compile(r"^\./(?:dist/)?skillyard-[\d.]+-py3-none-any\.whl$")
BY_NAME = re.compile(r"""^["']?skillyard(?:\[site\])?["']?$""")


def install_lines(page: Path) -> list[tuple[int, str, str]]:
    out = []
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        for match in INSTALL.finditer(line):
            target = match.group(1)
            if "skillyard" in target and not target.startswith("-"):
                out.append((number, line, target.strip("`")))
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_install_line_is_a_tested_route(page):
    lines = install_lines(page)
    assert any(FROM_GIT.match(target) for _, _, target in lines), f"{page.name} gives no install that works today"
    for number, line, target in lines:
        if BY_NAME.match(target):
            context = "\n".join(page.read_text(encoding="utf-8").splitlines()[max(0, number - 5):number])
            assert "first release" in context or "once released" in context, \
                f"{page.name}:{number}: `{line.strip()}` installs from PyPI, where nothing is released yet"
        else:
            assert FROM_GIT.match(target) or FROM_WHEEL.match(target), f"{page.name}:{number}: untested route {target}"
