"""Behaviour rules: what a skill's instructions or scripts would make an agent do, not which words they use.

Each rule looks for an action (download and run, decode and run, read a secret and send it, write a startup file,
switch a safety control off, override the agent's instructions) and says where and why. A word alone is never
blocking: a credential path needs a read or copy next to it, a network call needs a secret flowing into it, a
vendor installer piped to a shell is a warning unless a "Prerequisites"-style lure or an unknown host goes with it.

Speed: a file is lowered once; each rule family runs only when its trigger words are in it (`gates.py`).
"""

from __future__ import annotations

import functools
import re

from skillyard.format.scan import lures, precision
from skillyard.format.scan.context import (  # noqa: F401
    _BASH_OR_ALLOW,
    _DOTENV_LIBRARIES,
    _HTTP_SCHEMES,
    _INDEX_WORDS,
    _NOW_OR_NEW,
    _NPX_WORD,
    _PROMPT_WORD,
    _REVEAL_VERBS,
    _URL,
    _YES_FLAGS,
    ERROR,
    NPX_PACKAGES,
    PACKAGE_INDEXES,
    WARNING,
    Add,
    Context,
    _discussed,
    _host_is_vendor,
    _words,
)
from skillyard.format.scan.exec_flows import (
    DOWNLOAD_EXEC,
    _index_of_line,
    archive_exec,
    decode_exec,
    download_exec,
)
from skillyard.format.scan.flows import AGENT_AND_HISTORY_SECRETS
from skillyard.format.scan.rule_gates import (
    _ARE_IS,
    _EARLIER,
    _NOT_ANYMORE,
    _RULE_NOUNS,
    _SAFETY_KINDS,
    APPLY_STEM,
    CONCEAL_TRIGGER,
    VOID_STEMS,
)
from skillyard.format.scan.written import written_span

# ---------------------------------------------------------------- secrets flowing to the network
SECRET_SOURCE = re.compile(
    r"(?<![\w-])\.ssh\b(?!/(?:[\w.-]+\.pub|known_hosts|config|authorized_keys)\b)|(?<![\w-])\.(?:aws|kube|gnupg|netrc|npmrc|pypirc|git-credentials|docker[/\\]config\.json|"
    r"config[/\\](?:solana|gcloud|gh)(?![\w-])|ethereum|bitcoin|electrum)\b"
    r"|\bid_(?:rsa|ed25519|ecdsa|dsa)\b(?!\.pub)|/etc/shadow\b|\bLogin Data\b|\bwallet\.dat\b|\bkeychain\b|"
    r"\bkeystore\b|\*\.(?:pem|key|p12|pfx|kdbx|ppk|jks)\b|\.aws/credentials|(?<![\w/.-])\.env(?:\.local|\.production)?\b(?![\w.-])|" + AGENT_AND_HISTORY_SECRETS,
    re.I)
ENV_DUMP = re.compile(r"dict\(os\.environ\)|os\.environ\.copy\(\)|os\.environ\.items\(\)|json\.dumps\(\s*os\.environ"
                      r"|JSON\.stringify\(\s*process\.env\s*\)|\.\.\.process\.env\b|body:\s*process\.env\b"
                      r"|\bprintenv\b[^\n|]{0,300}\||(?:^|[;&|(]\s*|`)env\s*\||\bGet-ChildItem\s+env:[^\n]{0,300}\|"
                      r"|\bset\s*\|\s*curl", re.I | re.M)
NETWORK_SINK = re.compile(
    r"requests\.(?:post|put|patch)\(|httpx\.(?:post|put)\(|urlopen\([^\n]{0,300}data\s*=|Request\([^\n]{0,300}data\s*=|"
    r"urlopen\(\s*req|\.sendall\(|\.send\(|create_connection\(|socket\.socket\(|"
    r"fetch\([^\n]{0,300}(?:method|body)|axios\.post\(|"
    r"\bcurl\b[^\n]{0,300}(?:\s-d\b|\s--data|\s-F\b|\s--form\b|\s-T\b|\s--upload-file\b|-X\s*POST)|"
    r"\bwget\b[^\n]{0,300}--post|\b(?:nc|ncat|netcat)\s+(?:-\w+\s+)*\S+\s+\d{2,5}\b|"
    r"Invoke-(?:WebRequest|RestMethod)[^\n]{0,300}-Method\s+Post|\bnslookup\b|\bdig\s+\S|gethostbyname|"
    r"https?://[^\s'\"`)]*(?:webhook\.site|pastebin|paste\.|transfer\.sh|hooks\.slack\.com|api/webhooks|ngrok|"
    r"requestbin|pipedream|interact\.sh|oast\.)|"
    r"\bscp\s+\S+\s+\S+@|\bftp://|"
    r"\b(?:send|post|upload|forward|transmit|exfiltrate|submit)\w*\b[^\n]{0,80}(?:https?://|webhook|endpoint|server)|"
    r"\b(?:env[ií]a|enviar|envoie[zs]?|envoyer|sende|senden|invia|inviare|отправь\w*|sube|subir)\b[^\n]{0,120}"
    r"https?://|(?:发送|上传|送信)[^\n]{0,40}https?://|"
    r"\b(?:paste|include|attach|share|publish)\b[^\n]{0,80}\b(?:(?:comment|issue|gist|message|reply|form)\b[^\n]{0,40}"
    r"https?://|pastebin|gist\.github)",
    re.I)
_SOURCE_WORDS = (".ssh", ".aws", ".kube", ".gnupg", ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".docker",
                 "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "/etc/shadow", "login data", "wallet", "keychain",
                 "keystore", ".config/", ".ethereum", ".bitcoin", ".electrum", "environ", "process.env",
                 "printenv", "env |", "env|", "env:", "set |", ".env")
_SECRET_WORDS = ("_history", ".claude", ".codex", ".cursor", "extension settings", ".pgpass", ".vault-token",
                 ".password-store", "keychains", ".env", ".ssh", ".aws", ".kube", ".gnupg", ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".docker",
                 "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "/etc/shadow", "login data", "wallet.dat", "keychain",
                 "keystore", ".config", ".ethereum", ".bitcoin", ".electrum")
_ENV_WORDS = ("environ", "process.env", "printenv", "env |", "env|", "env:", "set |", "set|")
# Every secret location and start-up file starts with `.` or holds `_`: two regexes with a literal first character
# find them at C speed (the regex engine skips to each `.` and `_`), far cheaper than one `in` per name.
_SOURCE_TOKENS = _words("ssh", "aws", "kube", "gnupg", "netrc", "npmrc", "pypirc", "credentials", "docker", "id_rsa",
                        "bash_history", "zsh_history", "python_history", "consolehost_history", "pgpass", "extension",
                        "claude", "codex", "cursor", "keychains", "op", "gh",
                        "id_ed25519", "id_ecdsa", "id_dsa", "shadow", "login", "wallet", "keychain", "keystore",
                        "solana", "gcloud", "ethereum", "bitcoin", "electrum", "environ", "printenv", "env")
_SPLIT_SOURCE_TOKENS = _words("ss", "rsa", "ed25519", "home", "expanduser", "id_")
_READ_VERB = re.compile(r"\b(?:cat|less|more|head|tail|read|reads|reading|open|load|copy|cp|scp|rsync|send|upload|"
                        r"post|print|dump|base64|tar|zip|exfiltrate|include|attach|paste|grep|type|Get-Content|"
                        r"curl|collect|gather|harvest|show|output|archive|back ?up|forward|"
                        r"lee|leer|lire|lis|lisez|lies|lesen|leggi|leggere|leia|ler|envía|envia|enviar|envoie|envoyer|"
                        r"sende|senden|invia|inviare|копируй|прочитай|прочти|отправь)\b|read_text|read_bytes|"
                        r"open\(|@|读取|读|發送|发送|上传|読み|送信", re.I)


def exfiltration(ctx: Context, add: Add) -> None:
    if not ctx.gates_off and not ctx.has(_SOURCE_TOKENS) and not (ctx.python and ctx.has(_SPLIT_SOURCE_TOKENS)):
        return
    sources: list[tuple[int, str]] = []
    dotenv = ctx.has(_DOTENV_LIBRARIES)  # a library reads .env for the script's own use
    for match in ctx.finditer(SECRET_SOURCE, _SECRET_WORDS):
        if not (dotenv and match.group().startswith(".env")) and not precision.path_as_option(ctx.text, match.start()):
            sources.append((match.start(), match.group().strip(" /\\\"',")))
    for match in ctx.finditer(ENV_DUMP, _ENV_WORDS):
        if not precision.env_filtered(ctx.line_at(match.start())):
            sources.append((match.start(), "the whole environment (every variable, secrets included)"))
    if ctx.python:
        facts = ctx.facts
        if facts is not None:
            for line, value in facts.strings:
                found = SECRET_SOURCE.search(value)
                if found and not any(found.group().strip(" /\\\"',") in s for _, s in sources):
                    sources.append((_index_of_line(ctx.text, line), found.group().strip(" /\\\"',")))
            for line in facts.env_dump:
                sources.append((_index_of_line(ctx.text, line), "the whole environment"))
    if not sources:
        return
    sources.sort()
    reported_sink = False
    sinks: dict[tuple[int, int], re.Match | None] = {}  # a script's sources share one block: searched once
    for index, what in sources[:200]:
        if index < 0 or precision.only_written(ctx.text, index, what):  # a line the parser named that the text
            continue  # does not have (never placed on another), or a file the script makes and does not read
        if ctx.prose and (ctx.negated(index) or ctx.quoted(index)):
            continue
        if ctx.prose and not ctx.in_fence(index) and not _READ_VERB.search(ctx.line_at(index)):
            continue  # prose that only names the file ("add .env to .gitignore") reads nothing
        if what.startswith("the whole environment") and precision.env_for_child(ctx, index):
            continue  # a copy handed to a child process's `env=` stays on this machine
        start, end = ctx.block(index, 6)
        if ctx.prose and ctx.line_at(index).lstrip().startswith("|"):  # a table row lists; rows are not steps
            start = ctx.text.rfind("\n", 0, index) + 1
            end = ctx.text.find("\n", index) % (len(ctx.text) + 1)
        if (start, end) not in sinks:
            sinks[(start, end)] = precision.network_sink(ctx, NETWORK_SINK, start, end)
        sink = sinks[(start, end)]
        if sink and not reported_sink:
            reported_sink = True
            add("security-exfiltration", ERROR, index,
                f"Reads `{what[:60]}` and sends data over the network (`{sink.group().strip()[:60]}`, line "
                f"{ctx.text.count(chr(10), 0, sink.start()) + 1} of this file): secrets leave the user's machine.",
                "Do not read secrets from the user's machine; ask for the one value the skill needs as an input.")
        elif not sink:
            line_start = ctx.text.rfind("\n", 0, index) + 1
            line_end = ctx.text.find("\n", index)
            line = ctx.text[line_start:line_end if line_end >= 0 else len(ctx.text)]
            if _READ_VERB.search(line) and not what.startswith("the whole environment") and \
                    not (ctx.prose and what.startswith(".env") and not precision.SHOW_VERB.search(line)):
                # a how-to that loads or creates a project's own `.env` reads no one's secrets; showing it does
                add("security-credential-path", WARNING, index,
                    f"Reads a credential location (`{what[:60]}`).",
                    "Do not read secrets from the user's machine; ask for the value as an input instead.")


SECRET_IMAGE = re.compile(
    r"!?\[[^\]\n]{0,300}\]\(\s*<?https?://[^)\s]{0,500}(?:\$\{?[A-Z_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASS|CRED|SESSION)[A-Z_]*\}?|"
    r"\{\{?\s*(?:env|secrets?|[a-z_.]*(?:key|token|secret|password|conversation|history|chat|context|memory))[^}]*\}|"
    r"\$\(\s*(?:cat|printenv|env|echo))",
    re.I)


def secret_url(ctx: Context, add: Add) -> None:
    if not (ctx.gates_off or ctx.has(_HTTP_SCHEMES)) or b"](" not in ctx.raw or not (b"$" in ctx.raw or b"{" in ctx.raw):
        return
    for match in ctx.finditer(SECRET_IMAGE, ("$", "{"), also=("](",)):  # a key to its own API is a warning:
        add("security-exfiltration", precision.secret_url_severity(match.group()), match.start(),
            f"A Markdown image or link whose address carries a secret or the conversation (`{match.group()[:80]}`): "
            "rendering it sends that value to the host, with no click needed.",
            "Remove the placeholder from the URL.")


# ---------------------------------------------------------------- persistence
_RC_FILES = r"(?:\.bashrc|\.bash_profile|\.zshrc|\.zprofile|\.zshenv|\.profile|\.bash_login|config\.fish|" \
            r"Microsoft\.PowerShell_profile\.ps1|\$PROFILE)\b"
_WRITE = r"(?:>>?|\btee\b|open\([^\n]{0,300}[\"'][aw]\+?[\"']|write|Add-Content|Set-Content|Out-File|\bcp\b|\bmv\b|\bln\b)"
PERSIST_ALWAYS = re.compile(
    r"\bauthorized_keys\b|\balias\s+sudo\s*=|\bLibrary/Launch(?:Agents|Daemons)\b|\.config/systemd/user\b|"
    r"\bsystemctl\s+--user\s+(?:enable|start)|\bCurrentVersion\\+Run(?:Once)?\b|\bStart Menu\\+Programs\\+Startup\b|"
    r"\bschtasks\b[^\n]{0,300}/create|\bcrontab[ \t]+-(?=\s|$)|\|[ \t]*crontab\b|@reboot\b",
    re.I | re.M)
_PERSIST_TOKENS = _words("authorized_keys", "alias", "launchagents", "launchdaemons", "systemd", "systemctl",
                         "currentversion", "startup", "schtasks", "crontab", "reboot", "bashrc", "bash_profile", "zshrc",
                         "zprofile", "zshenv", "profile", "bash_login", "fish")
_PERSIST_LINE_WORDS = ("authorized_keys", "alias", "--user", "launchagents", "launchdaemons", "systemd", "currentversion", "startup",
                       "schtasks", "crontab", "@reboot")
_RC_WORDS = ("bashrc", "bash_profile", "zshrc", "zprofile", "zshenv", "profile", "bash_login", "config.fish")
_RC_WRITE = re.compile(_WRITE + r"[^\n]{0,300}" + _RC_FILES + r"|" + _RC_FILES + r"[^\n]{0,300}" + _WRITE, re.I)
_PAYLOAD = re.compile(r"\b(?:curl|wget)\b[^\n]{0,200}?(?:\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|\|\s*python|\s-d\b|--data|"
                      r"\s-F\b|\s-T\b|--upload|--post)|"  # a download that runs or uploads; a ping is neither
                      r"\b(?:nc|ncat|netcat|base64|iex|irm|python[0-9.]*\s+-c|bash\s+-i|/dev/tcp|"
                      r"alias\s+sudo|PROMPT_COMMAND|nohup|eval\s+\"?\$\(\s*(?:curl|wget|echo))\b|/tmp/\.|/tmp/\w", re.I)


def persistence(ctx: Context, add: Add) -> None:
    if not ctx.gates_off and not ctx.has(_PERSIST_TOKENS):
        return
    seen = False
    for match in ctx.finditer(PERSIST_ALWAYS, _PERSIST_LINE_WORDS):
        if ctx.prose and ctx.negated(match.start()):
            continue
        start, end = ctx.block(match.start(), 4)
        chunk = ctx.text[start:end]
        token = match.group().lower()
        writes = re.search(_WRITE + r"|launchctl\s+(?:load|bootstrap)|enable|\bcat\s*>|/create|reg\s+add|ItemProperty|"
                           r"\b(?:create|save|place|install)\b|RunAtLoad|KeepAlive|WantedBy", chunk, re.I)
        if ("crontab" in token or "@reboot" in token or "schtasks" in token or  # a user service for an installed program:
                precision.installed_program_job(ctx.text[start:end + 1500])) and not _PAYLOAD.search(chunk):
            continue
        if "authorized_keys" in token and precision.key_not_added_here(ctx.line_at(match.start()), chunk):
            continue
        if not writes and "alias" not in token:
            continue
        if not _PAYLOAD.search(chunk) and "authorized_keys" not in token and "alias" not in token:
            add("security-persistence", WARNING, match.start(), f"Registers something to start again later (`{ctx.sentence(match.start()).strip()[:80]}`): a login item, service or scheduled job outlives the task. Nothing it runs is fetched, decoded or hidden; check it is what the user asked for.", "Tell the user what will run and how to remove it.")  # noqa: E501
            seen = True
            break
        add("security-persistence", ERROR, match.start(),
            f"Makes itself start again later (`{ctx.sentence(match.start()).strip()[:80]}`): a login item, "
            "service, scheduled job, shell alias or SSH key outlives the task and the skill's removal.",
            "Remove the step; a skill must not change what runs at login or who can log in.")
        seen = True
        break
    if seen:
        return
    for match in ctx.finditer(_RC_WRITE, _RC_WORDS):
        # What is written: the write's own line in prose; in code, the statement around it (a heredoc or the
        # lines building the text written; a literal's own line), never a download elsewhere in the same script.
        start, end = (match.start(), match.end()) if ctx.prose else written_span(ctx.text, match.start(), 6)
        if _PAYLOAD.search(ctx.text, start, end):
            add("security-persistence", ERROR, match.start(),
                f"Writes a command into a shell start-up file (`{match.group().strip()[:80]}`): it runs in every "
                "new shell, long after the task.", "Remove the step; tell the user what to add themselves.")
            return


# ---------------------------------------------------------------- agent-safety tampering
SAFETY_OFF = re.compile(
    r"--dangerously-skip-permissions|--dangerously-bypass-approvals-and-sandbox|\bbypassPermissions\b|"
    r"dangerouslyDisableSandbox|--yolo\b|\"Bash\(\*\)\"|Bash\(\*\)|\"allow\"\s*:\s*\[\s*\"\*\"|"
    r"\bspctl\s+--master-disable|\bcsrutil\s+disable|Set-MpPreference\s+-Disable\w+|"
    r"Add-MpPreference\s+-Exclusion\w+|\bsetenforce\s+0|\bufw\s+disable|"
    r"systemctl\s+(?:stop|disable)\s+(?:firewalld|apparmor|auditd)|netsh\s+advfirewall\s+set\s+\w+\s+state\s+off|"
    r"Set-ExecutionPolicy\s+(?:Unrestricted|Bypass)\s+-Scope\s+(?:LocalMachine|CurrentUser)",
    re.I)
_SAFETY_TOKENS = _words("dangerously", "bypasspermissions", "dangerouslydisablesandbox", "yolo", "spctl", "csrutil",
                        "mppreference", "setenforce", "ufw", "firewalld", "apparmor", "auditd", "advfirewall",
                        "executionpolicy")
_SAFETY_WORDS = ("dangerously", "dangerouslydisablesandbox", "bypasspermissions", "yolo", "(*)", '"allow"', "spctl", "csrutil", "mppreference",
                 "setenforce", "ufw", "systemctl", "advfirewall", "executionpolicy")


def safety_off(ctx: Context, add: Add) -> None:
    if not ctx.gates_off and not ctx.has(_SAFETY_TOKENS) and not (ctx.has(_BASH_OR_ALLOW) and (b"(*)" in ctx.raw or b'"*"' in ctx.raw)):
        return
    for match in ctx.finditer(SAFETY_OFF, _SAFETY_WORDS):
        if ctx.prose and (ctx.negated(match.start()) or ctx.quoted(match.start()) or precision.warned_about(
                ctx, match.start())) or precision.scoped_exclusion(ctx, match.start(), match.group(), add):
            continue
        if ctx.prose and (precision.user_chooses(ctx, match.group()) or precision.in_container(ctx, match.start())):
            add("security-safety-bypass", WARNING, match.start(),
                f"Offers to switch off a safety control (`{match.group()[:60]}`) when the user agrees (the skill asks "
                "them first) or inside a container the command starts: whatever runs that way runs without prompts.",
                "Keep the question to the user; prefer the narrowest permission mode that works.")
            continue
        taught = ctx.markdown and precision.attack_example(ctx, match.start())  # a guide's captioned attack
        add("security-safety-bypass", WARNING if taught else ERROR, match.start(),
            f"Switches off a safety control (`{match.group()[:60]}`): the agent or the OS stops asking before "
            "running commands or stops blocking unsigned programs." + (" Quoted as an attack example (its caption "
                                                                       "says so): a warning, not a block." if taught else ""),
            "Remove it; let the user grant permissions themselves.")


# ---------------------------------------------------------------- instruction-level injection
OVERRIDE = re.compile(
    r"\b(?:ignore|disregard|forget|set aside|pay no (?:attention|heed) to|override|overrule|discard|bypass)\b"
    r"[^.\n]{0,40}?\b(?:previous|prior|earlier|above|preceding|original|system|safety|your other|all other|"
    r"any other|existing)\b[^.\n]{0,30}?\b(?:instructions?|guidance|rules|directions|prompts?|guidelines|"
    r"constraints|polic(?:y|ies)|messages?|restrictions)\b"
    r"|\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:instructions|guidance|rules)\s+"
    r"(?:you\s+(?:were\s+given|received|got|have)|above|before)"
    r"|\b(?:previous|prior|earlier|original|system|other)\s+(?:instructions?|guidance|rules|prompt)\s+(?:are|is)\s+"
    r"(?:outdated|void|cancell?ed|no longer|obsolete|superseded|revoked|invalid)"
    r"|\bsupersedes?\s+(?:your|all|any)\s+(?:other|previous|prior|system)"
    r"|\b(?:safety|security|content)\s+(?:guidelines|rules|policies|filters)[^.\n]{0,40}(?:do not|don't|no longer)\s+"
    r"apply"
    r"|\byou are now\s+(?:in\s+)?(?:DAN|developer mode|maintenance mode|jailbroken|unrestricted|god mode|an? "
    r"(?:unrestricted|unfiltered))"
    r"|\byour new (?:instructions|rules|role|system prompt)\b"
    r"|\bsystem override\b"
    r"|\bobey only (?:this|these|me)\b"
    r"|\b(?:reveal|print|show|output)\s+(?:your|the)\s+system prompt\b",
    re.I)
ROLE_TAG = re.compile(r"</?(?:system|assistant|skill|system_prompt|developer)>|<\|(?:im_start|im_end|system|"
                      r"endoftext)\|>|\[/?(?:SYSTEM|INST)\]")
CONCEAL = re.compile(
    r"\b(?:do not|don't|never|must not)\s+(?:tell|inform|mention|reveal|show|disclose|notify|alert|report)\s+"
    r"(?:(?:this|it|anything|that)\s+)?(?:to\s+)?(?:the\s+|your\s+)?(?:user|human|operator)"
    r"|\b(?:do not|don't|never|must not)\s+(?:mention|reveal|disclose)\s+(?:this|it|the upload|these steps?)\b"
    r"|\bwithout\s+(?:telling|informing|notifying|asking|alerting)\s+(?:the\s+)?(?:user|human)"
    r"|\b(?:hide|conceal|keep)\s+(?:this|it|these steps?)\s+(?:hidden\s+)?from\s+(?:the\s+)?user"
    r"|\b(?:quietly|secretly|covertly)\b[^.\n]{0,60}\b(?:send|run|forward|upload|post|install|execute|copy)\b",
    re.I)
_INJECT_VERBS = _words("ignore", "disregard", "forget", "aside", "override", "overrule", "discard", "supersede",
                       "supersedes", "superseded", "outdated", "obsolete", "revoked", "obey")
_INJECT_ROLES = _words("dan", "jailbroken", "unrestricted", "unfiltered", "maintenance", "developer", "god", "your")
_INJECT_WORDS = ("ignore", "disregard", "forget", "set aside", "pay no", "override", "overrule", "discard", "bypass",
                 "supersede", "no longer", "apply", "you are now", "your new", "obey only", "system prompt",
                 "outdated", "obsolete", "void", "cancel", "revoked", "invalid")
_TAG_TOKENS = _words("system", "assistant", "skill", "developer", "system_prompt", "im_start", "im_end", "endoftext",
                     "inst")
_TAG_WORDS = ("<system", "</system", "<assistant", "</assistant", "<skill", "</skill", "<developer", "</developer",
              "<|", "[system", "[inst", "[/inst")
_TAG_GATE = re.compile(r"<(?:/?(?:system|assistant|skill|developer|system_prompt)>|\|)|\[/?(?:SYSTEM|INST)\]|"
                       r"(?:SYSTEM|ASSISTANT)\s*:")
_CONCEAL_WORDS = ("tell", "inform", "mention", "reveal", "disclose", "notify", "alert", "hide", "conceal", "quietly",
                  "secretly", "covertly", "show", "report", "asking", "keep")  # one in every CONCEAL match


def injection(ctx: Context, add: Add, found_rules) -> None:
    if not ctx.prose:
        return
    if ctx.gates_off or ctx.has(_INJECT_VERBS) or (ctx.has(_SAFETY_KINDS) and ctx.has(_NOT_ANYMORE) and ctx.low_has(APPLY_STEM)) or \
            (ctx.has(_NOW_OR_NEW) and ctx.has(_INJECT_ROLES)) or \
            (ctx.has(_PROMPT_WORD) and ctx.has(_REVEAL_VERBS)) or \
            (ctx.has(_EARLIER) and ctx.has(_RULE_NOUNS) and ctx.has(_ARE_IS) and ctx.low_has(VOID_STEMS)):
        for match in ctx.finditer(OVERRIDE, _INJECT_WORDS):
            if ctx.as_code(match.start()) or ctx.quoted(match.start()) or _discussed(ctx, match.start()) or precision.scoped_exception(ctx.sentence(match.start())):  # noqa: E501
                continue
            add("security-prompt-injection", ERROR, match.start(),
                f"Tells the agent to drop its other instructions: \"{ctx.sentence(match.start()).strip()[:100]}\". "
                "A skill adds to the agent's instructions; it must not replace them.",
                "Remove the sentence; state only what this skill does.")
            break
    if ctx.gates_off or (ctx.has(_TAG_TOKENS) and (ctx.gate("tag") or ctx.gate("bracket"))):
        for match in ctx.finditer(ROLE_TAG, _TAG_WORDS):
            if ctx.as_code(match.start()) or ctx.quoted(match.start()) or _discussed(ctx, match.start()) or precision.dialogue(ctx, match.start()):
                continue
            add("security-prompt-injection", ERROR, match.start(),
                f"A fake conversation tag (`{match.group().strip()[:30]}`) in the instructions: it pretends the "
                "text after it comes from the system or closes the skill early.", "Remove the tag.")
            break
    if CONCEAL_TRIGGER.fires(ctx):
        for match in ctx.finditer(CONCEAL, _CONCEAL_WORDS):
            if ctx.as_code(match.start()) or ctx.quoted(match.start()) or precision.withheld_until(ctx.sentence(match.start())):
                continue  # code, a quotation, or a quiz keeping its answer back until the user has tried
            start, end = ctx.block(match.start(), 6)
            chunk = ctx.text[start:end]
            acts = bool(NETWORK_SINK.search(chunk) or SECRET_SOURCE.search(chunk) or DOWNLOAD_EXEC.search(chunk)
                        or _URL.search(chunk)) or any(found_rules.get(rule) for rule in _BEHAVIOUR_RULES)
            add("security-concealment", ERROR if acts else WARNING, match.start(),
                f"Tells the agent to hide what it does from the user: \"{ctx.sentence(match.start()).strip()[:100]}\""
                + (" next to an action that reaches the network or the user's secrets." if acts else "."),
                "Remove it; a skill's steps must be visible to the user they run for.")
            break


# Each OVERRIDE match holds one of `_INJECT_WORDS` and each CONCEAL match one of these, lowercase and spelled with
# single spaces; in ASCII text (where IGNORECASE folds nothing beyond A-Z) a text holding none cannot match.
_CONCEAL_GATE = ("not", "don't", "never", "without", "hide", "conceal", "keep", "quietly", "secretly", "covertly")


def may_match(text: str, words: tuple[str, ...]) -> bool:
    """False only when an IGNORECASE pattern every match of which holds one of `words` cannot match `text`: ASCII
    text without any of them (non-ASCII text is always searched: `K`, the Kelvin sign, matches `k` there)."""
    if not text.isascii():
        return True
    low = text.lower()
    return any(word in low for word in words)


_BEHAVIOUR_RULES = frozenset({"security-download-exec", "security-pipe-to-shell", "security-exfiltration",
                              "security-credential-path", "security-persistence", "security-obfuscated-exec",
                              "security-safety-bypass"})

# ---------------------------------------------------------------- supply chain: package names and indexes
NPX = re.compile(r"\bnpx\s+(?:-y|--yes)\s+(@?[\w.-]+(?:/[\w.-]+)?)", re.I)
INDEX = re.compile(r"(?:--(?:extra-)?index-url|--registry|\bconfig\s+set\s+registry|PIP_(?:EXTRA_)?INDEX_URL=|"
                   r"--trusted-host|\s-i)\s*[= ]\s*(\S+)", re.I)


def supply_chain(ctx: Context, add: Add) -> None:
    if ctx.gates_off or (ctx.has(_NPX_WORD) and ctx.has(_YES_FLAGS)):
        for match in ctx.finditer(NPX, ("npx",)):
            name = match.group(1).split("@latest")[0].lower()
            near = near_name(name, NPX_PACKAGES)
            if near:
                add("security-typosquat", ERROR, match.start(),
                    f"Runs `{name}` with `npx -y` (downloaded and run without a prompt); its name is one typo "
                    f"away from the well-known `{near}`, the way typosquatted packages are named.",
                    f"Check the spelling: did you mean `{near}`?")
    if ctx.gates_off or ctx.has(_INDEX_WORDS):
        for match in ctx.finditer(INDEX, ("index-url", "registry", "trusted-host", "pip_index_url",
                                          "pip_extra_index_url")):
            url = match.group(1).strip("'\"`")
            if "://" not in url and "trusted-host" not in match.group().lower():
                continue
            if any(host in url.lower() for host in PACKAGE_INDEXES):
                continue
            insecure = (url.lower().startswith("http://") or bool(re.match(r"(?:https?://)?\d+\.\d+\.\d+\.\d+", url))) and not precision.loopback_url(url)
            if not insecure and url.lower().startswith("https://") and _host_is_vendor(url, ctx):
                continue  # the vendor's own index over HTTPS (`pypi.nvidia.com` in a skill about NVIDIA's libraries)
            add("security-package-index", ERROR if insecure else WARNING, match.start(),
                f"Installs packages from a non-default index (`{url[:60]}`)"
                + (" over plain HTTP or a bare IP address" if insecure else "")
                + ": a package of the same name there wins over the real one (dependency confusion).",
                "Install from the default index, or document who runs this index and pin hashes.")


def near_name(name: str, known: tuple[str, ...]) -> str | None:
    """The well-known name `name` imitates (edit distance 1–2, scaled to length), or None when it is one of them
    or nothing close. `known` is a tuple, looked at in its order, so the answer never depends on hashing."""
    if name in known:
        return None
    letters = set(name)
    by_start, by_end = _ends_index(known)
    for at in sorted(set(by_start.get(name[:2], ())) | set(by_end.get(name[-2:], ()))):
        candidate = known[at]  # typosquats keep the start or the end of the name they imitate: only those are tried
        limit = 1 if len(candidate) <= 6 else 2
        if abs(len(candidate) - len(name)) > limit + 4:
            continue
        # An edit changes which letters occur by at most two, so a larger difference of letter sets rules a pair out
        # before the (costlier) distance.
        if len(letters.symmetric_difference(candidate)) <= 2 * limit and distance(name, candidate, limit) <= limit:
            return candidate
        if name.startswith(candidate[:3]) and len(name) > len(candidate) and not name.startswith(candidate):
            head = name[:len(candidate)]
            if len(set(head).symmetric_difference(candidate)) <= 2 * limit and distance(head, candidate, limit) <= limit:
                return candidate
    return None


@functools.lru_cache(maxsize=16)
def _ends_index(known: tuple[str, ...]) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """The positions in `known` of the names starting, and of those ending, with each two letters."""
    by_start: dict[str, list[int]] = {}
    by_end: dict[str, list[int]] = {}
    for at, candidate in enumerate(known):
        by_start.setdefault(candidate[:2], []).append(at)
        by_end.setdefault(candidate[-2:], []).append(at)
    return by_start, by_end


def distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance (a swap of neighbours counts once), cut off above `limit`. Only the band of
    cells within `limit` of the diagonal can stay under the cut-off, so only those are computed: a few per row."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    over = limit + 1
    width = len(b)
    previous2: list[int] = []
    previous = [j if j <= limit else over for j in range(width + 1)]
    for i in range(1, len(a) + 1):
        ca = a[i - 1]
        low, high = max(1, i - limit), min(width, i + limit)
        current = [over] * (width + 1)
        current[0] = i if i <= limit else over
        best = current[0]
        for j in range(low, high + 1):
            cb = b[j - 1]
            value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb and previous2[j - 2] + 1 < value:
                value = previous2[j - 2] + 1
            current[j] = value if value <= limit else over
            best = min(best, current[j])
        if best > limit:
            return over
        previous2, previous = previous, current
    return min(previous[-1], over)


def scan(ctx: Context, add: Add, found_rules) -> None:
    """Every behaviour rule over one file. `found_rules` counts the rules reported so far for this file (a mapping
    that `add` keeps up to date), so concealment next to an action can be judged."""
    download_exec(ctx, add)
    archive_exec(ctx, add)
    lures.told(ctx, add)
    decode_exec(ctx, add)
    exfiltration(ctx, add)
    secret_url(ctx, add)
    persistence(ctx, add)
    safety_off(ctx, add)
    supply_chain(ctx, add)
    injection(ctx, add, found_rules)
