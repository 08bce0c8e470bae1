"""What a script writes, makes or only names, as opposed to what it reads (issue 34, fifth precision pass): a
secret-named file that is a write's target (`writeFileSync(".env.local", …)`, `open(".env", "w")`, `> .env`), a
folder or key being made (`mkdir -p ~/.ssh`, `ssh-keygen -f ~/.ssh/id_ci`) or words of a printed message is not a
secret leaving the machine; a shell start-up line that appends one literal holds all it writes. `precision`
re-exports every name; the rules call them there."""

from __future__ import annotations

import re

# `echo 'export PATH=$PATH:/usr/local/go/bin' >> ~/.profile`, maybe after a guard (`grep -q … ~/.profile ||`):
# `echo`/`printf` of one literal (single-quoted, or double-quoted expanding at most $PATH, $HOME, $PWD, $USER)
# appended or written to a file, and nothing after it on the line.
_LITERAL_WRITE = re.compile(r"(?:^|\|\||&&|;)[ \t]*(?:echo|printf)[ \t]+(?:-e[ \t]+)?(?:'[^'\n]*'|\"(?:[^\"$`\\\n]|"
                            r"\$\{?(?:PATH|HOME|PWD|USER)\b\}?|\\[^\n])*\")[ \t]*>>?[ \t]*\S+[ \t]*\Z", re.M)


def literal_write_line(text: str, index: int) -> tuple[int, int] | None:
    """The span of the line holding `index` when that line writes a literal text to a file (see `_LITERAL_WRITE`):
    what it writes is on the line itself, so a command elsewhere in the script is not part of it."""
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    end = len(text) if end < 0 else end
    return (start, end) if _LITERAL_WRITE.search(text, start, end) else None


# Right before a path a script writes: a write call's first argument, a shell redirect or `tee`.
_WRITE_BEFORE = re.compile(r"(?:\b(?:writeFileSync|writeFile|appendFileSync|appendFile|createWriteStream|File\.write|"
                           r"IO\.write|os\.WriteFile|ioutil\.WriteFile|os\.Create)\(\s*|"
                           r"\b(?:Set-Content|Out-File|Add-Content)(?:\s+-(?:Path|FilePath|LiteralPath))?\s+|"
                           r"(?:^|[^<>&\d])>>?\s*|\btee\s+(?:-a\s+)?|\bmkdir\s+(?:-p\s+)?(?:-m\s*\d+\s+)?|"
                           r"\bchmod\s+(?:-R\s+)?[0-7]{3,4}\s+|\bssh-keygen\b[^\n|;&]{0,120}?\s-f\s+)"
                           r"[\"'`]?(?:~/|\./|\$\{?HOME\}?/)?\Z")
# Right after one opened for writing: `open(".env.local", "w")`, `File.open(p, "a")`, `Path(".env").write_text(`.
_OPEN_BEFORE = re.compile(r"\b(?:open|File\.open|Path)\(\s*[\"'](?:~/|\./)?\Z")
# What follows `.ssh` in a path that holds no secret (rules.SECRET_SOURCE does not read these either).
_NO_SECRET = re.compile(r"(?<=\.ssh)/(?:[\w.-]+\.pub|known_hosts|config|authorized_keys)\b")
# Inside the text of a message printed or logged (`console.log(`wrote 3 variables to .env.local`)`), no call between.
_MESSAGE_BEFORE = re.compile(r"\b(?:console\.(?:log|info|warn|error)|print|puts|echo|Write-(?:Host|Output)|"
                             r"fmt\.Print\w*|log\.(?:Print\w*|info|warning)|logger\.\w+)\(?\s*f?[`\"']"
                             r"(?:[^`\"'(){}\n]|\$?\{[^{}()\n]*(?:\(\w*\)[^{}()\n]*)?\})*\Z")
_MAX_MENTIONS = 32  # mentions of the file on one line looked at (each finding asks once)
_WRITE_AFTER = re.compile(r"[\w.-]*[\"']\s*(?:,\s*(?:mode\s*=\s*)?[\"'][wax]b?\+?[\"']|\)\.write_(?:text|bytes)\()")


def only_written(text: str, index: int, what: str) -> bool:
    """Every mention of the secret file `what` on the line holding `index` is a file the script writes
    (`writeFileSync(".env.local", …)`, `open(".env", "w")`, `> .env.local`) or words of a message it prints
    (`console.log(`wrote .env.local`)`), a folder it makes or a key it generates (`mkdir -p ~/.ssh`, `chmod 700
    ~/.ssh`, `ssh-keygen -f ~/.ssh/id_ed25519_ci`): it makes that file or names it, and reads nothing."""
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    line = text[start:len(text) if end < 0 else end]
    at = line.find(what) if what else -1
    if at < 0:
        return False
    for _ in range(_MAX_MENTIONS):
        before = line[max(0, at - 80):at]
        if not (_WRITE_BEFORE.search(before) or _MESSAGE_BEFORE.search(before) or
                _NO_SECRET.match(line, at + len(what)) or
                (_OPEN_BEFORE.search(before) and _WRITE_AFTER.match(line, at + len(what)))):
            return False
        at = line.find(what, at + len(what))
        if at < 0:
            return True
    return False  # a line naming it this often is not judged mention by mention: the finding stands


def written_span(text: str, index: int, lines: int) -> tuple[int, int]:
    """What a write into a shell start-up file at `index` writes: the line alone when it writes one literal
    (`literal_write_line`), else from `lines` lines before the one holding `index` to `lines` lines after it (a
    heredoc, or the lines building the text)."""
    found = literal_write_line(text, index)
    if found:
        return found
    start = end = index
    for _ in range(lines + 1):
        start = text.rfind("\n", 0, max(0, start - 1)) + 1 if start > 0 else 0
    for _ in range(lines + 1):
        found_end = text.find("\n", end + 1)
        end = len(text) if found_end < 0 else found_end
    return start, end
