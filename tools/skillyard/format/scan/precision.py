"""Precision helpers for the behaviour rules: what looks like an attack but is an honest skill's everyday code.

- A child process given a copy of the environment (`env = os.environ.copy(); env["X"] = "1";
  subprocess.run(..., env=env)`) keeps the variables on this machine: that is how every launcher passes settings
  (Anthropic's office skills start LibreOffice this way). Only the environment reaching a network call leaks it.
- A socket that is a Unix-domain socket, or that connects to this machine's loopback address, sends nothing off the
  machine: probing whether a local LibreOffice listener answers is not exfiltration.
- A security guide that names a dangerous flag in order to warn against it ("flag it as high risk") teaches; it
  does not switch the protection off.
- A credential file handed to a tool as an option (`ssh -i ~/.ssh/key`, `--netrc-file ~/.netrc`,
  `AWS_SHARED_CREDENTIALS_FILE=~/.aws/credentials`, `key_filename=`) is how that tool logs in: the script never
  reads the secret, so nothing of it flows to a send. The environment filtered by name (`printenv | grep '^CI_'`)
  is those variables, not every secret.
- A flag that switches a safety control off, offered as a question to the user first ("ask whether they may run
  with --dangerously-skip-permissions"), is the user's choice: a warning.
- In a skill named for security work (`gha-security-review`, `skill-scanner`), a Markdown fence or code span that its
  heading, the lines just before it or its own comments call an attack ("# Attacker's version of action.yml",
  "**Payload in PR title:**") quotes the attack to teach it: a warning, never a block (issue 34, item 4). Under a
  "Prerequisites"-style lure it is still an error; in any other skill the caption changes nothing.
"""

from __future__ import annotations

import re

from skillyard.format.findings import Severity
from skillyard.format.scan.context import Context
from skillyard.format.scan.everyday import (  # noqa: F401  (the rules call them here)
    api_client,
    colour_escape,
    container_vendor_step,
    dialogue,
    harmless_split,
    in_container,
    installed_program_job,
    item_span,
    key_not_added_here,
    known_vendor_url,
    loopback_url,
    media_base64,
    module_as_url,
    native_mark,
    quoted_to_refuse,
    secret_url_severity,
    to_service,
    unforbidden,
    withheld_until,
    without_confirmed,
)
from skillyard.format.scan.written import literal_write_line, only_written, written_span  # noqa: F401  (re-exported)

# `name = os.environ.copy()` / `dict(os.environ)` / `{**os.environ}` / `Object.assign({}, process.env)`.
_ENV_ASSIGN = re.compile(r"^[ \t]*(?:const\s+|let\s+|var\s+)?([A-Za-z_]\w{0,60})\s*(?::[^=\n]{1,40})?=\s*"
                         r"(?:dict\(\s*os\.environ\s*\)|os\.environ\.copy\(\)|\{\s*\*\*os\.environ|"
                         r"\{\s*\.\.\.process\.env\b|Object\.assign\(\s*\{\s*\}\s*,\s*process\.env\b)", re.M)
_LOCAL_HOSTS = re.compile(r"[\"'](?:127\.0\.0\.1|localhost|::1|0\.0\.0\.0)[\"']|AF_UNIX|\bunix:", re.I)
# Any destination a socket could reach beyond this machine: a URL or a host literal that is not loopback.
_REMOTE = re.compile(r"(?:https?|ftp|wss?)://(?!(?:127\.0\.0\.1|localhost|\[::1\])\b)|"
                     r"[\"'](?!127\.|0\.0\.0\.0|localhost)\d{1,3}(?:\.\d{1,3}){3}[\"']|"
                     r"(?:connect|create_connection)\w*\(\s*\(\s*(?![\"'](?:127\.0\.0\.1|localhost|::1)[\"'])[^)\s]",
                     re.I)
_SOCKET_SINKS = ("socket.socket(", "create_connection(", ".send(", ".sendall(")
_WARNED = re.compile(r"\b(?:flag (?:it|this|them|that)|high[- ]risk|is risky|unsafe|insecure|warn(?:s|ing)?\b|"
                     r"report (?:it|each|them|this)|never use|do not use|don't use|audit|red flag)", re.I)


def env_for_child(ctx: Context, index: int) -> bool:
    """Whether the environment copy at `index` only goes to a child process's `env=` (and is returned or changed in
    place), never into any other call."""
    if not ctx.code:
        return False
    start = ctx.text.rfind("\n", 0, index) + 1
    match = _ENV_ASSIGN.match(ctx.text, start)
    if not match or "env=" not in ctx.text.replace(" ", ""):
        return False
    name = re.escape(match.group(1))
    for use in re.finditer(rf"(?<![\w.]){name}(?!\w)", ctx.text):
        if use.start() == match.start(1):
            continue
        before = ctx.text[max(0, use.start() - 12):use.start()].replace(" ", "")
        after = ctx.text[use.end():use.end() + 3].lstrip(" ")
        if before.endswith(("env=", "env:", "return", "in", "if")) or after.startswith(("[", ".get(", ".update(",
                                                                                       ".pop(", ".setdefault(")):
            continue
        return False
    return True


def network_sink(ctx: Context, pattern: re.Pattern, start: int, end: int) -> re.Match | None:
    """The first match of `pattern` (rules.NETWORK_SINK) in text[start:end] that can leave the machine: in a script
    whose sockets are Unix-domain or loopback only and that names no remote destination, socket calls are local;
    in an API client (`api_client`) nothing leaves for anyone but that API."""
    local: bool | None = None
    if ctx.code and api_client(ctx.text):
        return None  # every address is a known web API's own host over HTTPS: the project's keys go where they belong
    for sink in pattern.finditer(ctx.text, start, end):
        if ctx.code and sink.group().startswith(_SOCKET_SINKS):
            if local is None:
                local = bool(_LOCAL_HOSTS.search(ctx.text)) and not _REMOTE.search(ctx.text)
            if local:
                continue
        return sink
    return None


def warned_about(ctx: Context, index: int) -> bool:
    """A prose line that names a control in order to warn about it (a security audit's checklist)."""
    if ctx.code:
        return False
    start = ctx.text.rfind("\n", 0, index) + 1
    end = ctx.text.find("\n", index)
    end = len(ctx.text) if end < 0 else end
    following = ctx.text.find("\n", end + 1)
    line = ctx.text[start:following if following > 0 and ctx.text[end + 1:end + 3].startswith("  ") else end]
    if _WARNED.search(line) or (security_skill(ctx) and _REVIEW_TALK.search(line)):
        return True
    return line.lstrip().startswith("|") and _table_lead_warns(ctx.text, start)


_TABLE_BACK = 16_000  # characters of table rows walked back to find its lead-in (each finding asks once)
# Talk of the review itself ("say so in the report rather than calling it a finding"), in a security skill.
_REVIEW_TALK = re.compile(r"\b(?:findings?|in (?:the|your) report|reviewers?)\b", re.I)


def _table_lead_warns(text: str, row_start: int) -> bool:
    """The paragraph just before the table holding the row at `row_start` warns about what the table lists ("Report
    these, each as high risk, and never add them yourself:"), and does not deny it ("none is high risk")."""
    start = row_start
    while start > 0:
        if row_start - start > _TABLE_BACK:
            return False  # a table this long is not read back to its lead: the finding stands
        previous = text.rfind("\n", 0, start - 1) + 1
        if not text[previous:start].lstrip().startswith("|"):
            break
        start = previous
    lead = text[max(0, start - _FRAME_BEFORE):start].rstrip().rsplit("\n\n", 1)[-1]
    found = _WARNED.search(lead)
    return bool(found) and not _DENIED.search(lead, 0, found.start())


# Words that call the quoted code an attack: said of it in its heading, the two lines before its fence, its own
# comments or (for a code span) its sentence.
_ATTACK_FRAME = re.compile(r"\b(?:attack(?:er|ers|er's|s)?|malicious|exploit(?:s|ed|ing|ation)?|payloads?|vulnerable|"
                           r"insecure|steal(?:s|ing)?|exfiltrat\w*|compromised?|backdoor(?:ed|s)?|proof of concept|"
                           r"red flags?|dangerous|risky|pwn\w*|don't do this|bad example|malware|droppers?|"
                           r"poison(?:ed|ing)|typosquat\w*|trojan\w*|stealers?|iocs?|"
                           # "(do not run)", "never run them": said of the quote itself, not "do not run in production"
                           r"(?:do not|don't|never) (?:run|execute)(?: (?:it|this|them|these))?(?=\s*[):.;,]|\s*$)|"
                           # the same in German, French, Spanish, Italian and Portuguese guides
                           r"b(?:ö|oe)sartig\w*|sch(?:ä|ae)dlich\w*|angriff\w*|angreifer\w*|"
                           r"(?:niemals|nicht) ausf(?:ü|ue)hren|malveillant\w*|attaques?|maliciosos?|maliciosas?|"
                           r"ataques?|atacantes?|dannos[oia]|attacc\w*|n'ex(?:é|e)cutez (?:jamais|pas)|"
                           r"nunca (?:lo )?ejecut\w*|non eseguire|nunca execute)\b", re.I)
# A frame word the sentence itself denies ("it is not dangerous", "no red flag"): no caption.
_DENIED = re.compile(r"\b(?:not|no|none|isn't|never|nothing|without|hardly)\b[^.\n]{0,24}\Z", re.I)
_FRAME_BEFORE = 300  # characters before a fence read for its caption


# A skill whose name says it teaches, reviews or detects attacks.
_SECURITY_NAME = re.compile(r"secur|scan|audit|vuln|threat|attack|exploit|pentest|malware|injection|guard|harden|"
                            r"red-?team|forensic|incident|ctf|owasp|sast|cve|review|safe|phish|detect|defen|protect|"
                            r"risk|trust|sandbox|abuse|hack|privacy|supply-?chain|homoglyph|confusable|spoof|awareness|"
                            # "security" in German, French, Spanish, Portuguese, Italian, Dutch, Polish, Turkish
                            r"sicherheit|s[eé]curit[eé]|seguridad|seguran[cç]a|sicurezza|beveilig|bezpiecz|g[uü]venlik|"
                            r"(?:^|-)iocs?(?:-|\Z)",
                            re.I)


def security_skill(ctx: Context) -> bool:
    """A skill whose name says it teaches, reviews or detects attacks (`gha-security-review`, `injection-guard`)."""
    return bool(_SECURITY_NAME.search(ctx.skill_name))


_SENTENCE_END = re.compile(r"[.!?](?:\s|\Z)|\n")


def _framed_after(text: str, index: int) -> bool:
    """The rest of a code span's sentence calls it an attack ("Code like `eval(atob(…))` in a utility is a red
    flag"), unless it denies it ("… is not dangerous")."""
    close = text.find("`", index)
    if close < 0:
        return False
    end = _SENTENCE_END.search(text, close + 1, close + 240)
    tail = text[close + 1:end.start() if end else close + 240]
    found = _ATTACK_FRAME.search(tail)
    return bool(found) and not _DENIED.search(tail, 0, found.start())


def _title(text: str) -> str:
    """A Markdown file's first heading (a reference's title: "Pwn Request Attacks")."""
    first = _FIRST_HEADING.search(text)
    return first.group(1) if first else ""


_FIRST_HEADING = re.compile(r"^#{1,6}[ \t]+([^\n]{0,300})", re.M)


def attack_example(ctx: Context, index: int) -> bool:
    """Whether `index` is in a Markdown fence or code span that is captioned as an attack being taught, in a skill
    named for security work."""
    if not ctx.markdown or not _SECURITY_NAME.search(ctx.skill_name):
        return False
    text = ctx.text
    if ctx.in_fence(index):
        start = next(a for a, b in reversed(ctx.fences) if a <= index)
        caption_start = start
        for _ in range(2):  # the two non-blank lines before the fence
            caption_start = text.rfind("\n", 0, max(0, caption_start - 1)) + 1
            if not text[caption_start:start].strip():
                caption_start = text.rfind("\n", 0, max(0, caption_start - 1)) + 1
        caption = text[max(caption_start, start - _FRAME_BEFORE):start]
        line_end = text.find("\n", index)
        inside = text[start:line_end if line_end >= 0 else len(text)]
        comments = "\n".join(line for line in inside.split("\n") if line.lstrip().startswith(("#", "//", "<!--", "--")))
        framed = _ATTACK_FRAME.search(caption) or _ATTACK_FRAME.search(comments)
    elif ctx.in_code_span(index):  # its sentence, or the lead-in of the list or paragraph it is in
        framed = _ATTACK_FRAME.search(text, max(0, index - _FRAME_BEFORE, text.rfind("\n#", 0, index) + 1), index) \
            or _framed_after(text, index)
    else:
        return False
    if not framed and not _ATTACK_FRAME.search(ctx.heading(index)) and not _ATTACK_FRAME.search(_title(text)):
        return False
    return not ctx.lured(index) or bool(_LURE_NAMED_ATTACK.search(ctx.heading(index)))


# A heading that names the lure itself as the attack ("Attack: fake prerequisite", "Malicious requirements").
_LURE_NAMED_ATTACK = re.compile(r"\b(?:fake|malicious|bogus|rogue|poisoned)[ -]+[\"'\u201c]?(?:prereq|requirement)", re.I)


# Asking the user before using a flag: Claude Code's AskUserQuestion tool, or the words.
_ASK_USER = re.compile(r"AskUserQuestion|\bask (?:the user|them|whether|if)\b|\bwith the user's (?:consent|permission|"
                       r"approval)|\bif the user (?:agrees|approves|chooses|opts in)|\bconfirm with the user\b", re.I)


def user_chooses(ctx: Context, flag: str) -> bool:
    """Whether a prose line of the file both names `flag` and asks the user about it: the skill offers the switch
    and the user decides (every mention in that file then follows the answer)."""
    at = ctx.text.find(flag)
    while at >= 0:
        if _ASK_USER.search(ctx.line_at(at)):
            return True
        at = ctx.text.find(flag, at + len(flag))
    return False


# Behaviour rules a security guide may quote in a captioned fence to teach the attack (warnings there, not blocks).
TAUGHT_RULES = frozenset({"security-pipe-to-shell", "security-download-exec", "security-exfiltration",
                           "security-persistence", "security-obfuscated-exec", "security-reverse-shell",
                           "security-credential-path"})


# Where a hidden note says where its text came from or under which licence: attribution, which gives no orders.
_ATTRIBUTION = re.compile(r"\s*(?:source|sources|based on|adapted|reference material|licen[cs]e|licensed|copyright|\(c\)|"
                          r"\u00a9|author|authors|written by|generated|auto-generated|spdx|originally|credits?|"
                          r"derived from|inspired by|forked from|ported from|taken from|translated from|todo|fixme|note to self|"
                          r"draft|wip)\b", re.I)


# A marker for tools or templates: up to three words in capitals (`FILEMAP:BEGIN`, `BRANDING`), or a formatter's
# or linter's directive (`prettier-ignore`, `markdownlint-disable MD013`, `omit in toc`).
_MARKER = re.compile(r"\s*(?:[A-Z0-9_:./-]+(?:[ \t]+[A-Z0-9_:./-]+){0,2}|(?i:prettier|markdownlint|textlint|vale|cspell|"
                     r"eslint|toc|omit in toc|end ?toc)\b[\w:. -]{0,60})\s*\Z")


def inert_hidden(inner: str) -> bool:
    """Hidden text that cannot steer an agent: a marker of a few words and no address (`FILEMAP:BEGIN`,
    `prettier-ignore`, `BRANDING`), a short attribution or licence note that gives no orders, or a maintainer's
    note on how the file is made ("To regenerate this table, run ./scripts/gen_table.sh", "Generated by
    terraform-docs. Do not edit by hand")."""
    return bool(_MARKER.match(inner)) or (len(inner) <= 600 and bool(_ATTRIBUTION.match(inner))) or \
        (len(inner) <= 300 and bool(_MAINTAINER_NOTE.match(inner)) and not _NOTE_REACHES.search(inner))


# A note to whoever edits the file: how it is generated, regenerated or kept in sync.
_MAINTAINER_NOTE = re.compile(r"\s*(?:to (?:regenerate|rebuild|refresh|update) (?:this|the)\b|(?:this (?:file|section|"
                              r"table|list|block) (?:is|was) )?(?:auto-?)?generated (?:by|from|with)\b|do not edit|"
                              r"don't edit|keep (?:this|it|in sync)\b|edit (?:\S+ )?instead\b|maintainers?:|"
                              r"last (?:updated|reviewed)\b|(?:begin|end|start|stop)[ _-](?:generated|auto|tf_docs)\b)",
                              re.I)
# What such a note may not mention: an address, a pipe into a shell, secrets, or the agent's own instructions.
_NOTE_REACHES = re.compile(r"://|\|\s*\w*sh\b|\b(?:curl|wget|iex|secret|token|password|credential|api[_ -]?key|"
                           r"ignore|disregard|override|forget|pretend|system prompt|assistant|agent|model|claude)\b|"
                           r"\.ssh\b|\.env\b|\.aws\b", re.I)


# A line that names the invisible characters it shows (a guide to Unicode smuggling quoting an example).
_NAMES_INVISIBLE = re.compile(r"zero[- ]width|invisible|\bU\+(?:200[B-F]|20[6-6][0-9A-F]|FEFF|E00[0-7][0-9A-F])\b|"
                              r"\bZW(?:SP|J|NJ)\b|bidi|homoglyph", re.I)


def demonstrated(text: str, index: int) -> bool:
    """The character sits inside quotation marks or a code span on a line that names such characters: a teaching
    example ("ig<U+200B>nore" with a zero-width space), not text hidden from the reader."""
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    line = text[start:end if end >= 0 else len(text)]
    before = text[start:index]
    inside = before.count('"') % 2 == 1 or before.count("`") % 2 == 1 or \
        before.count("\u201c") > before.count("\u201d")
    return inside and bool(_NAMES_INVISIBLE.search(line))


# Right before a credential path: an option or setting that hands the file to a tool (which then logs in with it).
_AS_OPTION = re.compile(r"(?:\s-i|\s-[Ii]dentityFile|--(?!upload|data|form|post|output)[\w-]*(?:file|config|key|"
                        r"identity|homedir|cert)|\b(?:key_filename|identity_file|keyfile|key_file|kubeconfig|homedir)|"
                        r"\b(?:AWS_SHARED_CREDENTIALS_FILE|AWS_CONFIG_FILE|KUBECONFIG|GNUPGHOME|NETRC|DOCKER_CONFIG|"
                        r"GOOGLE_APPLICATION_CREDENTIALS|NPM_CONFIG_USERCONFIG|PIP_CONFIG_FILE))[ \t]*[= ]?[ \t]*[\"']?"
                        r"(?:\$\{?HOME\}?|~|\$env:USERPROFILE|%USERPROFILE%|os\.path\.expanduser\([\"']~)?[/\\]?\Z")


def path_as_option(text: str, index: int) -> bool:
    """The credential path at `index` is the value of an option or setting (`ssh -i ~/.ssh/key`,
    `--netrc-file "$HOME/.netrc"`, `KUBECONFIG=~/.kube/config`): the tool logs in with it; nothing reads it."""
    start = max(text.rfind("\n", 0, index) + 1, index - 120)
    return bool(_AS_OPTION.search(text, start, index))


_SECRET_NAMES = re.compile(r"key|token|secret|pass|cred|auth|api|session|cookie|private", re.I)


def env_filtered(line: str) -> bool:
    """`printenv | grep '^CI_'`: the environment narrowed to named variables that name no secret."""
    match = re.search(r"\|\s*grep\s+(?!-v)([^|]*)", line)
    return bool(match) and not _SECRET_NAMES.search(match.group(1))


# Verbs that show or pass on what was read (`print .env`), as opposed to loading a project's own settings.
SHOW_VERB = re.compile(r"\b(?:print|dump|show|display|output|send|upload|post|paste|include|attach|exfiltrate|forward|"
                       r"share|reveal|echo)\b|\bcat\s+(?!>)", re.I)


# Rules a detection pattern may look like: what a security tool's rule file matches, not what the skill does.
_DETECTABLE = TAUGHT_RULES | {"security-prompt-injection", "security-concealment", "security-no-confirmation",
                              "security-safety-bypass", "security-hidden-instructions"}
_RULE_FILES = (".yaml", ".yml", ".json", ".toml", ".yar", ".yara", ".rules", ".sigma")
_DETECTION_KEY = re.compile(r"[ \t]*(?:-[ \t]*)?[\"']?(?:pattern[\w-]*|patterns|regexp?|regex[\w-]*|match(?:es)?|"
                            r"signatures?|iocs?|indicators?|detection|detect\w*|keywords?|needles?|contains|strings)"
                            r"[\"']?[ \t]*:", re.I)


def detection_pattern(ctx: Context, index: int, rule: str) -> bool:
    """In a skill named for security work, the match is the value of a detection rule in a rule file (Semgrep's
    `pattern:` / `pattern-regex:`, a YARA `strings:` entry, a Sigma `detection:` keyword): a pattern the tool
    looks for, quoted to find it, so a warning, not a block. Found on its own line's key or on the key of the
    block it is listed under."""
    if rule not in _DETECTABLE or not ctx.file.endswith(_RULE_FILES) or not security_skill(ctx):
        return False
    start = ctx.text.rfind("\n", 0, index) + 1
    if _DETECTION_KEY.match(ctx.text, start):
        return True
    indent = len(ctx.text[start:index]) - len(ctx.text[start:index].lstrip(" \t-"))
    for _ in range(12):  # the nearest line above with less indentation: the key this value is listed under
        if start == 0:
            return False
        start = ctx.text.rfind("\n", 0, start - 1) + 1
        line = ctx.text[start:ctx.text.find("\n", start)]
        if line.strip() and len(line) - len(line.lstrip(" \t")) < indent:
            return bool(_DETECTION_KEY.match(line))
    return False


# Microsoft Defender exclusions (issue 34, fourth pass). Microsoft's build-performance guidance excludes a project's
# folder, package caches and compilers; malware excludes where it drops (temp, downloads, a whole profile or drive)
# or the script hosts it runs through, and switches scanning off outright.
_EXCLUSION = re.compile(r"Add-MpPreference\s+-Exclusion(?:Path|Process)\b", re.I)
_BROAD_EXCLUSION = re.compile(
    r"-ExclusionExtension|Set-MpPreference|\$env:(?:TEMP|TMP)\b|%TEMP%|%TMP%|\\Temp\b|/tmp\b|Downloads|ProgramData|"
    r"\\Users\\Public|Startup|System32|SysWOW64|\\Windows\b|\$env:(?:windir|SystemRoot|ProgramFiles\w*)\b|"
    r"\$env:(?:USERPROFILE|APPDATA|LOCALAPPDATA|HOMEDRIVE|HOMEPATH)[\"')]|[\"'][A-Za-z]:\\?[\"']|"
    r"\b(?:powershell|pwsh|cmd|wscript|cscript|mshta|rundll32|regsvr32|msiexec|certutil|bitsadmin|explorer|"
    r"conhost|svchost|wmic|schtasks|installutil|msbuild\.exe\s*-|\w{1,12}\.(?:scr|vbs|js|bat|cmd|hta))(?:\.exe)?[\"']",
    re.I)
_FETCHES = re.compile(r"https?://|\b(?:Invoke-WebRequest|Invoke-RestMethod|iwr|irm|curl|wget|Start-BitsTransfer|"
                      r"DownloadFile|DownloadString|DownloadData|WebClient|HttpClient|bitsadmin|certutil)\b", re.I)


def scoped_exclusion(ctx: Context, index: int, command: str, add) -> bool:
    """A Defender exclusion at `index` for named build folders and tools, in a file that downloads nothing, names no
    broad or drop location (temp, downloads, a profile's or drive's root, system folders), no script host and no
    extension, and switches nothing off: a slower-build fix that lowers protection for the user's own folders, so
    a warning to review (added here), not a block. A payload fetched elsewhere in the skill is that file's own
    finding."""
    if not _EXCLUSION.match(ctx.text, index) or _BROAD_EXCLUSION.search(ctx.text) or _FETCHES.search(ctx.text):
        return False
    add("security-safety-bypass", Severity.WARNING, index, f"Adds a Microsoft Defender exclusion (`{command[:60]}`) "
        "for named folders or build tools: files there are no longer scanned. Nothing in this file downloads "
        "anything; check the paths are the user's own.",
        "Prefer a Dev Drive; otherwise exclude only the project's folders, and ask the user first.")
    return True


def taught_lookalike(ctx: Context, index: int, taught) -> bool:
    """A takeover written in look-alike letters that a security skill quotes to teach the trick (inside quotation
    marks, a fence or a paragraph about attacks: `taught`, prose's judgement): a warning to review, as an encoded
    attack sample is, not a block. Anywhere else the letters hide the order, which stays an error."""
    return ctx.prose and security_skill(ctx) and (ctx.in_fence(index) or taught(ctx, index))


# What a tool description may keep from the user without hiding anything the agent does: an internal field of the
# data it returns ("never tell the user the internal customer ID", "do not show the raw JSON"). Words that point at
# the agent's own steps ("this", "that you", "about it", "step") make it concealment.
_DATA_FIELD = re.compile(r"\b(?:internal|raw|private|supplier|database)\s+(?:\w+\s+){0,2}?(?:ids?|identifiers?|fields?|"
                         r"json|responses?|notes?|numbers?|codes?|costs?|margins?|keys?)\b", re.I)
_OWN_STEPS = re.compile(r"\b(?:this|these|that|it|its|step|steps|call|calls|about|bcc|cc|copy|copies|also|first|"
                        r"before|after|instruction|instructions|requirement)\b", re.I)


def data_kept_back(sentence: str) -> bool:
    """A tool description's concealment that keeps an internal data field from the user and names none of the
    agent's own steps: a warning to review, not a takeover."""
    return bool(_DATA_FIELD.search(sentence)) and not _OWN_STEPS.search(_DATA_FIELD.sub(" ", sentence))


# A style guide's exception: a kind of document or file (never the agent) may set aside this guide's own rules on a
# named topic ("Release notes may ignore the previous rules on sentence length", "Test files may ignore the earlier
# rules on docstrings"). A topic about safety, permissions or instructions makes it an override again.
_SCOPED_EXCEPTION = re.compile(r"\W*((?:[\w-]+\s+){1,5}?)(?:may|can|should|are allowed to|need not)\s+(?:also\s+)?"
                               r"(?:ignore|disregard|override|set aside)\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?(?:previous|prior|"
                               r"earlier|above|preceding)\s+(?:[\w-]+\s+){0,2}?(?:rules?|guidelines?|guidance|conventions?)"
                               r"\s+(?:on|about|for|regarding)\s+\w", re.I)
_AGENT_SUBJECT = re.compile(r"\b(?:you|your|agents?|assistants?|models?|ai|llms?|claude|codex|gemini|cursor|copilot|"
                            r"bots?|we|i)\b", re.I)
_GUARDED_TOPIC = re.compile(r"\b(?:safety|security|confirm\w*|permissions?|privacy|secrets?|credentials?|instructions?|"
                            r"system|polic\w+|approvals?|consent|tools?|users?|guardrails?|restrictions?)\b", re.I)


# A how-to's branch for another setup: "If you use Yarn, ignore the instructions above and run `yarn install`",
# "On Windows, skip the steps above and run setup.cmd". Reaching the network, secrets or deletions makes it no branch.
_BRANCH = re.compile(r"\W*(?:if\s+(?:you(?:'re|\s+are)?\s+(?:use|using|on|run|running|prefer|work\s+with)|"
                     r"(?:the|your)\s+(?:project|repo\w*|package|app|codebase|team|machine)\s+(?:uses?|has|is|already)"
                     r")|on\s+(?:windows|macos|mac|linux|wsl|freebsd)\b|when\s+using|for\s+[\w.-]+\s+(?:projects?|repos?"
                     r"|users?|installs?))\b[^.\n]{0,80}?(?:ignore|disregard|skip)\s+the\s+(?:[\w-]+\s+){0,2}?"
                     r"(?:instructions|steps|rules|guidance)\s+above\b", re.I)
_REACHES = re.compile(r"https?://|\b(?:send|upload|post|curl|wget|ssh|env|token|keys?|secrets?|passwords?|credentials?|"
                      r"delete|rm|claude|agent|assistant|model)\b|\.ssh\b|\.env\b", re.I)


# A convention's precedence over others of the same topic: "These conventions override any other commit message
# rules you may have" (the topic words stand between "other" and the rules).
_PRECEDENCE = re.compile(r"\W*(?:these|this|our|the)\s+(?:[\w-]+\s+){0,2}(?:conventions|rules|guidelines|style|standards)"
                         r"\s+(?:override|supersede|replace|take\s+precedence\s+over)\s+(?:any|all)\s+other\s+"
                         r"((?:[\w-]+\s+){1,3})(?:rules|conventions|guidelines|styles?|standards)\b", re.I)


def scoped_exception(sentence: str) -> bool:
    """`sentence` lets a kind of document or file set aside this guide's own rules on a named topic (a style
    exception), or branches a how-to for another setup (another package manager, another system): not an order to
    the agent to drop its instructions."""
    text = sentence.strip()
    match = _SCOPED_EXCEPTION.match(text)
    if match:
        return not _AGENT_SUBJECT.search(match.group(1)) and not _GUARDED_TOPIC.search(text)
    precedence = _PRECEDENCE.match(text)
    if precedence:
        return not _GUARDED_TOPIC.search(precedence.group(1)) and not _REACHES.search(text)
    branch = _BRANCH.match(text)
    rest = text[:branch.start()] + text[branch.end():] if branch else text  # the set-aside noun itself aside
    return bool(branch) and not _GUARDED_TOPIC.search(rest) and not _REACHES.search(text)


# "**ADMIN NOTE:** only org owners can change this": a note from staff in a runbook. A SYSTEM note, a message or an
# instruction in capitals is the fake-authority marker itself, and so is a note that orders anything that acts.
_STAFF_NOTE = re.compile(r"[*_\[(\s]*(?:ADMIN|ADMINISTRATOR|DEVELOPER|MAINTAINER|EDITOR|AUTHOR)S?\s+NOTES?\b[*_\])]*\s*:")
_NOTE_ACTS = re.compile(r"https?://|\b(?:ignore|disregard|override|forget|bypass|do not tell|don't tell|never tell|"
                        r"without (?:asking|confirm\w*)|curl|wget|upload|send|post|delete|rm|sudo|install|run|execute|"
                        r"read|open|fetch|token|secret|password|credential|key)\b|\.ssh\b|\.env\b", re.I)


def staff_note(ctx: Context, index: int) -> bool:
    """The role marker at `index` is a staff note (ADMIN NOTE, DEVELOPER NOTE) whose line orders nothing that acts
    or takes over: a warning to review, not a fake system message."""
    line = ctx.line_at(index)
    mark = _STAFF_NOTE.search(line)
    return bool(mark) and not _NOTE_ACTS.search(line[mark.end():])
