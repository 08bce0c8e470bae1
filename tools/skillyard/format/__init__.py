"""The skill format: schemas, frontmatter parsing and rules. Pure, except `package` which reads a folder."""

from skillyard.format.findings import Finding, Severity
from skillyard.format.frontmatter import Frontmatter, parse_skill_md, split_frontmatter
from skillyard.format.package import SkillPackage, load_skill
from skillyard.format.policy import Policy

__all__ = [
    "Finding",
    "Frontmatter",
    "Policy",
    "Severity",
    "SkillPackage",
    "load_skill",
    "parse_skill_md",
    "split_frontmatter",
]
