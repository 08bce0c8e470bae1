"""Security findings that need the whole skill: its frontmatter and what one file makes the agent do with another.

- The description is what every agent reads first (it is loaded into the system prompt before the skill is even
  chosen), so an override, a fake role tag or concealment there is always blocking.
- A name one or two typos away from a well-known skill's is how typosquats are published.
- `allowed-tools` that pre-approves every shell command removes the user's confirmation prompt.
- "Read references/x.md and follow it" makes x.md part of the instructions: the findings of x.md are repeated on
  the SKILL.md sentence that loads it, so a reviewer of SKILL.md sees them.
"""

from __future__ import annotations

import re

from skillyard.format.findings import Finding, Severity
from skillyard.format.scan import flows_skill, vendor
from skillyard.format.scan import rules as scan_rules

# Names of widely installed skills (Anthropic's examples, obra/superpowers, popular community ones): a near miss of
# one of these is a typosquat. Sorted, so that a name near two of them always names the same one.
WELL_KNOWN_SKILLS = tuple(sorted("""
pdf docx xlsx pptx skill-creator mcp-builder webapp-testing frontend-design canvas-design algorithmic-art
brand-guidelines internal-comms slack-gif-creator theme-factory web-artifacts-builder doc-coauthoring
artifacts-builder template-skill brainstorming test-driven-development systematic-debugging writing-plans
executing-plans writing-skills using-superpowers verification-before-completion requesting-code-review
receiving-code-review subagent-driven-development using-git-worktrees finishing-a-development-branch
dispatching-parallel-agents root-cause-tracing defense-in-depth condition-based-waiting testing-anti-patterns
code-review commit find-bugs github notion slack weather youtube-summarizer gog clawhub openclaw
tavily-search summarize agent-browser
""".split()))  # noqa: SIM905  (a word list, not quoted ids a rule-id check would read)
# A file named in SKILL.md, in a sentence that tells the agent to follow, obey or run what it says.
_FOLLOW = re.compile(r"\b(?:follow|obey|execute|carry out|comply with|do what|apply every|do exactly)\b", re.I)
_ALL_TOOLS = re.compile(r"^\s*(?:\*|Bash\(\s*\*\s*(?::\s*\*)?\s*\)|Bash\(\s*sudo[^)]*\))\s*\Z", re.I)
_SEVERE = (Severity.ERROR, Severity.WARNING)


def scan_skill(data: dict, texts: dict[str, str], skill_md: str | None, findings: list[Finding],
               key_lines: dict[str, int] | None = None) -> list[Finding]:
    """Skill-level findings, given the parsed frontmatter, every text file and the per-file findings so far."""
    key_lines = key_lines or {}
    file = skill_md or "skill.yaml"
    out: list[Finding] = []
    description = data.get("description")
    if isinstance(description, str) and not any(f.field == "description" and f.rule in _DESCRIPTION_RULES and
                                                 f.severity is Severity.ERROR for f in findings):
        out += _description(description[:4096], file, key_lines.get("description"))
    name = data.get("name")
    if isinstance(name, str) and 2 < len(name) <= 64:
        near = scan_rules.near_name(name.lower(), WELL_KNOWN_SKILLS)
        if near:
            out.append(Finding("security-typosquat", Severity.WARNING,
                               f"The name `{name}` is one or two typos away from the well-known skill `{near}`: "
                               "that is how typosquatted skills catch users who mistype or skim.",
                               f"Pick a name that cannot be mistaken for `{near}`.", file, key_lines.get("name"),
                               "name"))
    tools = data.get("allowed-tools")
    entries = tools.replace(",", " ").split() if isinstance(tools, str) else tools if isinstance(tools, list) else []
    for entry in entries[:200]:
        if isinstance(entry, str) and _ALL_TOOLS.match(entry):
            out.append(Finding("security-safety-bypass", Severity.ERROR,
                               f"`allowed-tools: {entry}` pre-approves every shell command while the skill is "
                               "active: the agent stops asking the user before running anything.",
                               "List the few commands the skill needs, e.g. `Bash(git status:*)`.", file,
                               key_lines.get("allowed-tools"), "allowed-tools"))
            break
    if skill_md and skill_md in texts:
        out += _followed_files(texts[skill_md], skill_md, texts, findings)
    out += flows_skill.scan(texts, findings, vendor.declared_homes(data))  # one script leaves a secret or a download
    # in a file, another uses it
    out += _runs_compiled(texts, findings)
    return out


# A command that runs a compiled file: `python x.pyc`, `java -jar x.jar`, `./bin/x`, `x.exe`, `node x.wasm`.
_RUN_COMPILED = re.compile(r"\bpython[0-9.]*\s+(?:-\w+\s+)*((?:\./)?[\w./-]{1,120}\.pyc)\b|"
                           r"\bjava\s+(?:-\w+\s+)*-jar\s+((?:\./)?[\w./-]{1,120}\.jar)\b|"
                           r"(?:^|[\s`(])(\./(?:scripts|bin|tools|assets|lib)/[\w./-]{1,120}\.(?:exe|bin|pyc))\b|"
                           r"\b(?:run|execute|launch|start)\s+`((?:scripts|bin|tools|assets|lib)/[\w./-]{1,120}\.(?:exe|pyc|jar))`",
                           re.I | re.M)


def _runs_compiled(texts: dict[str, str], findings: list[Finding]) -> list[Finding]:
    """Instructions that run a compiled file of the skill whose source the skill does not ship. When the file is
    there, the opaque-code finding names it; when it is not (fetched, unpacked or built later), this one does."""
    sources: set[str] | None = None
    named = {f.file for f in findings if f.rule == "security-opaque-code"}
    for rel, text in sorted(texts.items()):
        if not rel.lower().endswith((".md", ".sh")) or len(text) > 200_000 or not _COMPILED_HINT.search(text) or \
                not _RUN_COMPILED_PART.search(text):
            continue
        for match in _RUN_COMPILED.finditer(text):
            path = next(g for g in match.groups() if g).lstrip("./")
            stem = path.rsplit(".", 1)[0].rsplit("/", 1)[-1].split(".")[0]
            if sources is None:
                sources = {r.rsplit(".", 1)[0].rsplit("/", 1)[-1] for r in texts if r.endswith(_SOURCE_SUFFIXES)}
            if stem in sources or path in named or any(n.endswith(path) for n in named if n):
                continue
            return [Finding("security-opaque-code", Severity.ERROR,
                            f"Runs `{path}`, compiled code the skill ships no source for: what it does cannot be "
                            "reviewed.", "Ship the source under scripts/ and run that instead.", rel,
                            text.count("\n", 0, match.start()) + 1)]
    return []


_COMPILED_HINT = re.compile(r"\.(?:pyc|jar|exe|bin)\b")  # every _RUN_COMPILED match ends with one
# A literal part every _RUN_COMPILED match holds, one per alternative (`.pyc`, `-jar`, `./scripts/`, `` `scripts/ ``),
# with the same flags: the text is searched for it first, fast (each starts with a caseless character, so the engine
# skips ahead to it), and only the few files that hold one are searched with _RUN_COMPILED (~90 ns a character).
_RUN_COMPILED_PART = re.compile(r"\.pyc|-jar|\./(?:scripts|bin|tools|assets|lib)/|`(?:scripts|bin|tools|assets|lib)/",
                                re.I | re.M)
_SOURCE_SUFFIXES = (".py", ".java", ".kt", ".c", ".cc", ".cpp", ".rs", ".go", ".zig", ".cs", ".swift", ".ts", ".js")


_DESCRIPTION_RULES = frozenset({"security-prompt-injection", "security-concealment"})
_ALWAYS_LOADED = (" Agents load every description into their instructions before any skill is chosen, so this acts "
                  "even when the skill is never used.")


def drop_repeats(findings: list[Finding], skill_level: list[Finding]) -> list[Finding]:
    """The value scan's findings on the `description` that scan_skill's own description check repeats (the same
    sentence, now blocking because that one field is in every session's context): only the blocking one stays."""
    if not any(f.field == "description" for f in skill_level):
        return findings
    return [f for f in findings if not (f.field == "description" and f.rule in _DESCRIPTION_RULES)]


def _description(text: str, file: str, line: int | None) -> list[Finding]:
    found = []
    for pattern, what, gate in ((scan_rules.OVERRIDE, "tells the agent to drop its other instructions",
                                 scan_rules.may_match(text, scan_rules._INJECT_WORDS)),
                                (scan_rules.ROLE_TAG, "holds a fake conversation tag", "<" in text or "[" in text),
                                (scan_rules.CONCEAL, "tells the agent to hide what it does from the user",
                                 scan_rules.may_match(text, scan_rules._CONCEAL_GATE))):
        match = pattern.search(text) if gate else None
        if match:
            found.append(Finding("security-prompt-injection", Severity.ERROR,
                                 f"The description {what} (\"{match.group()[:80]}\")." + _ALWAYS_LOADED,
                                 "Describe what the skill does and when to use it; nothing else.", file, line,
                                 "description"))
    return found


def _followed_files(body: str, skill_md: str, texts: dict[str, str], findings: list[Finding]) -> list[Finding]:
    by_file: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.file and finding.file != skill_md and finding.severity in _SEVERE and \
                finding.rule.startswith("security-"):
            by_file.setdefault(finding.file, []).append(finding)
    out = []
    for rel, found in sorted(by_file.items()):
        at = body.find(rel)
        while at >= 0:
            start = max(body.rfind("\n", 0, at), body.rfind(". ", 0, at)) + 1
            end = body.find("\n", at)
            sentence = body[start:end if end >= 0 else len(body)]
            if _FOLLOW.search(sentence):
                worst = min(found, key=lambda f: (f.severity is not Severity.ERROR, f.line or 0))
                line = _skill_md_line(texts[skill_md], sentence.strip())
                out.append(Finding(worst.rule, worst.severity,
                                   f"Tells the agent to follow `{rel}`, which {worst.message[0].lower()}"
                                   f"{worst.message[1:]} (`{rel}` line {worst.line}).",
                                   f"Fix `{rel}`: {worst.fix or 'remove the finding there.'}", skill_md, line))
                break
            at = body.find(rel, at + 1)
    return out


def _skill_md_line(text: str, sentence: str) -> int | None:
    at = text.find(sentence[:80]) if sentence else -1
    return text.count("\n", 0, at) + 1 if at >= 0 else None
