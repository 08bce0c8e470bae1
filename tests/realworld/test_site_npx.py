"""`skillyard site build --fetch-upstream` on the real upstreams, and `npx skills add <site>` from what it serves:
every pointer whose licence allows it is rendered and served byte for byte; the npm client installs every skill."""

from __future__ import annotations

import hashlib
import html
import json
import re

import pytest
from tests.interop.clients import npm_install
from tests.realworld.helpers import COUNTS, expected_files, folder_files, run
from tests.site.wellknown import archive_files

from skillyard.format import licences


def _allowed(licence: str | None) -> bool:
    decision = licences.decide(licence)
    return bool(getattr(decision, "allowed", decision))


def _page_text(page) -> str:
    """The page's text: tags dropped, entities decoded, whitespace collapsed."""
    if not page.is_file():
        return ""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8"))).split())


def _first_heading(body: str) -> str | None:
    """The text of the body's first heading, Markdown marks (`*_[]) dropped, as the rendered page shows it."""
    for line in body.splitlines():
        if re.match(r"#{1,6} ", line):
            return " ".join(re.sub(r"[`*_\[\]]|\]\([^)]*\)", "", line.lstrip("#")).split())
    return None


FETCHED = "fetched from the pinned commit when this site was built; every file matched"


def test_site_renders_and_serves_every_pointer_the_licence_allows(standin, registry, pointers, own, site):
    index = json.loads((site.folder / ".well-known/agent-skills/index.json").read_text(encoding="utf-8"))
    served = {s["name"]: s for s in index["skills"]}
    problems = {}
    allowed = [p for p in pointers if _allowed(p.source.get("license"))]
    for p in allowed:
        want = expected_files(standin, registry, p.name, p)
        page = site.folder / "skills" / p.name / "index.html"
        text = _page_text(page)
        heading = _first_heading(want["SKILL.md"].decode("utf-8").split("---", 2)[-1])
        if not text:
            problems[p.name] = "no page"
        elif FETCHED not in text or (heading and "".join(heading.split()) not in "".join(text.split())):
            problems[p.name] = f"body not rendered (the page lacks {FETCHED!r} or the heading {heading!r})"
        if p.name not in served:
            problems[p.name] = problems.get(p.name, "") + " not in /.well-known/agent-skills/index.json"
            continue
        archive = (site.folder / ".well-known/agent-skills" / served[p.name]["url"]).read_bytes()
        got = archive_files(archive)  # schema 0.2.0: every served skill is one .tar.gz
        bad = sorted(rel for rel in set(want) | set(got) if got.get(rel) != want.get(rel))
        if served[p.name]["digest"] != "sha256:" + hashlib.sha256(archive).hexdigest():
            bad.append("(the archive's digest)")
        if bad:
            problems[p.name] = problems.get(p.name, "") + f" files differ: {bad}"
    missing_own = [name for name in own if name not in served]
    COUNTS["site"] = (f"{len(allowed) - len(problems)}/{len(allowed)} pointers rendered and served "
                      f"({len(pointers) - len(allowed)} withheld by licence: {sorted(set(p.name for p in pointers) - set(a.name for a in allowed))}), own {len(own) - len(missing_own)}/"
                      f"{len(own)} served, build {site.seconds:.0f}s")
    notes = [n for n in site.build.get("notes", []) if any(name in n for name in problems)]
    assert not problems and not missing_own, (f"{json.dumps(problems, indent=1)}\nown not served: {missing_own}\n"
                                              f"upstream states: {site.build.get('upstream')}\nnotes: {notes[:30]}")


def test_npx_skills_installs_every_skill_from_the_served_site(node22, standin, registry, pointers, own, site,
                                                              tmp_path):
    cli = npm_install("skills") / "node_modules" / "skills" / "dist" / "cli.mjs"
    if not cli.is_file():
        pytest.skip(f"skills: {cli} is missing after npm install")
    project = tmp_path / "project"
    project.mkdir()
    done = run([node22, cli, "add", site.url, "--skill", "*", "--agent", "codex", "--copy", "-y"], cwd=project,
               env={"HOME": str(tmp_path / "home"), "PATH": f"{node22.parent}:/usr/bin:/bin"}, timeout=900)
    by_name = {p.name: p for p in pointers}
    # A pointer whose licence does not allow redistribution (NOASSERTION among them) is never served by the site,
    # by design (security.md, "licences"): `skill install` fetches it from upstream instead (test_verify_install).
    withheld = sorted(name for name, p in by_name.items() if not _allowed(p.source.get("license")))
    names = sorted(set(own) | set(by_name) - set(withheld))
    root = project / ".agents" / "skills"
    missing, differ = [], {}
    for name in names:
        if not (root / name).is_dir():
            missing.append(name)
            continue
        got = folder_files(root / name)
        want = expected_files(standin, registry, name, by_name.get(name))
        if name in by_name and got != want:
            differ[name] = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
        elif set(got) != set(want):
            differ[name] = sorted(set(got) ^ set(want))
    COUNTS["npx skills"] = (f"{len(names) - len(missing) - len(differ)}/{len(names)} (the site never serves the "
                            f"{len(withheld)} whose licence forbids it: {withheld})")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert not missing and not differ, f"missing {missing}\ndiffer {differ}\n{done.stdout[-1500:]}"
