"""The skill page shows a skill's reviewed security exceptions (rule, file, reason) and marks the findings they
allow: built from a registry.json that the real `skillyard build` compiled."""

from __future__ import annotations

import html
import re
from pathlib import Path

from skillyard.registry.build import build_registry
from skillyard.site.builder import build_site

CONFIG = Path(__file__).resolve().parents[2] / "mkdocs.yml"  # as conftest's (not imported: see sitekit.py)
REASON = "Shows a zero-width space <as an example> of hidden text."


def test_skill_page_lists_the_reviewed_exceptions(tmp_path):
    root = tmp_path / "root"
    skill = root / "skills" / "teach"
    (skill / "references").mkdir(parents=True)
    (root / "skillyard.toml").write_text('name = "t"\nrepository = "acme/t"\nmode = "strict"\nskills_dir = "skills"\n',
                                         encoding="utf-8")
    (skill / "SKILL.md").write_text("---\nname: teach\ndescription: Teaches how prompt injection hides text. Use "
                                    "when reviewing skills.\n---\n\n# Teach\n\nRead references/x.md.\n",
                                    encoding="utf-8")
    (skill / "references/x.md").write_text("A hidden split: read\u200bthe notes.\n", encoding="utf-8")
    (skill / "skill.yaml").write_text('schema_version: "1.0"\nversion: 1.0.0\nsecurity_exceptions:\n'
                                      "  - rule: security-invisible-unicode\n    file: references/x.md\n"
                                      f'    reason: "{REASON}"\n', encoding="utf-8")
    plain = root / "skills" / "plain"
    plain.mkdir()
    (plain / "SKILL.md").write_text("---\nname: plain\ndescription: Does plain things. Use for plain work.\n---\n\n"
                                    "# Plain\n", encoding="utf-8")
    result = build_registry(root, use_cache=False)
    assert result.registry, [f.message for c in result.checked for f in c.findings if f.is_error]
    (root / "registry.json").write_text(result.outputs["registry.json"], encoding="utf-8")
    build_site(root / "registry.json", root, root / "_site", config=CONFIG, work_dir=tmp_path / "work")
    page = (root / "_site/skills/teach/index.html").read_text(encoding="utf-8")

    block = page[page.index('id="security-exceptions"'):]
    block = block[:block.index("</table>")]
    assert "Reviewed exceptions" in block
    row = re.search(r"<tr><td><code>(.*?)</code></td><td><code>(.*?)</code></td><td>(.*?)</td></tr>", block)
    assert row is not None, block
    assert row.group(1) == "security-invisible-unicode" and row.group(2) == "references/x.md"
    assert html.unescape(row.group(3)) == REASON and "<as an example>" not in row.group(3)  # escaped, not markup
    findings = page[page.index('id="security"'):page.index('id="security-exceptions"')]
    assert "1 allowed" in findings and "1 error" not in findings
    assert "Allowed by the skill, reason: " + REASON in html.unescape(findings)
    assert "Reviewed exceptions" not in (root / "_site/skills/plain/index.html").read_text(encoding="utf-8")

