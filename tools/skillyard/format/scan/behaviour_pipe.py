"""A download piped into an interpreter that is given its program on the command line reads the download as data.

`curl -fsSL https://api.github.com/repos/o/r/releases/latest | python3 -c 'import json,sys;
print(json.load(sys.stdin)["tag_name"])'` and `curl … | python3 -m json.tool` parse JSON: the program is the
`-c` argument (or a standard-library module), and what the server sends is only read. The pipe runs the download
only when the interpreter takes its program from standard input (`| python3`, `| python3 -`, `| node`), when the
given program evaluates or writes what it reads (`exec(sys.stdin.read())`, `eval`, `open(…, "w")`, a subprocess),
when the program is built by the shell (`"$CODE"`), or when its output goes on into another command that is not a
plain text filter (`… | python3 -c 'print(…)' | sh`). Each of those stays a download-and-run.
"""

from __future__ import annotations

import re

# The interpreter a download is piped into, and the option that hands it its program (or module) as an argument.
_PIPE_INTO = re.compile(r"\|\s*(?:sudo\s+(?:-\S+\s+)*)?(python[0-9.]*|node(?:js)?|perl|ruby|php)\b")
_CODE_OPTION = {"python": re.compile(r"-[IEsBuOq]*c\Z"), "node": re.compile(r"-(?:e|p|pe|--eval|--print)\Z"),
                "perl": re.compile(r"-[nlpaw]*[eE]\Z"), "ruby": re.compile(r"-[nlpaw]*e\Z"), "php": re.compile(r"-r\Z")}
# Standard-library modules that only read and print what they are given.
_DATA_MODULES = frozenset({"json.tool", "json"})
# Anything in the given program that could run, load or store what it reads, in the five languages: evaluators,
# processes, files, dynamic imports and names built at run time. One is enough to keep the pipe a download-and-run.
_RUNS = re.compile(r"\b(?:exec\w*|eval\w*|compile|system|subprocess|popen|spawn\w*|runpy|pickle|marshal|importlib|"
                   r"ctypes|open|write\w*|getattr|setattr|globals|locals|vars|builtins|b64decode|decode|fromhex|"
                   r"child_process|vm|Function|require|instance_eval|class_eval|send|public_send|qx|Kernel|IO|File|"
                   r"fs|shell\w*|unlink|remove|rename|chmod|input|breakpoint|code|pty|socket|os|load|loads|"
                   r"proc_open|passthru|assert|create_function|include|do)\b|__|`|\bimport\s*\(", re.I)
_JSON_LOAD = re.compile(r"\bjson\.loads?\b", re.I)
# The same words as parts of a longer name (`yaml.unsafe_load`, `pd.read_pickle`, `load_all`, `evalScript`): a
# name is split at underscores, dots, digits and case changes, and one risky part is enough.
_RUN_PARTS = frozenset({"exec", "eval", "compile", "system", "subprocess", "popen", "spawn", "runpy", "pickle",
                        "marshal", "importlib", "ctypes", "open", "write", "getattr", "setattr", "globals", "locals",
                        "vars", "builtins", "decode", "fromhex", "vm", "function", "require", "send", "kernel", "io",
                        "file", "fs", "shell", "unlink", "remove", "rename", "chmod", "input", "breakpoint", "code",
                        "pty", "socket", "os", "load", "loads", "passthru", "assert", "include", "unsafe"})
_NAME_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
# Commands that only filter or show text: output piped on into one of them stays text.
_FILTERS = frozenset({"head", "tail", "less", "more", "grep", "egrep", "fgrep", "sort", "uniq", "wc", "column",
                      "cut", "jq", "cat", "tr", "fold", "fmt", "nl"})
_SEGMENT_END = re.compile(r"&&|\|\||;|\n|\Z")


def _quoted(text: str, at: int) -> tuple[str, int] | None:
    """The shell word at `at` when it is one quoted string: (its content, the index after it), or None."""
    if at >= len(text) or text[at] not in "'\"":
        return None
    quote = text[at]
    if quote == "'":
        end = text.find("'", at + 1)
        return (text[at + 1:end], end + 1) if end >= 0 else None
    index = at + 1
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == '"':
            content = text[at + 1:index]
            return (None, 0) if "$" in content else (content, index + 1)  # the shell builds it: unknown
        index += 1
    return None


def stdin_is_data(text: str, start: int, end: int) -> bool:
    """Whether the download-and-run at `text[start:end]` (a download piped into an interpreter) hands the download
    to a program given on the command line that only reads it (see the module docstring)."""
    pipes = list(_PIPE_INTO.finditer(text, start, end))
    if not pipes:
        return False
    pipe = pipes[0]
    language = re.sub(r"[0-9.]+\Z", "", pipe.group(1)).replace("nodejs", "node")
    at = pipe.end()
    window = text[at:at + 8000]
    index, program = 0, None
    while True:
        while index < len(window) and window[index] in " \t":
            index += 1
        option = re.match(r"-[-\w]*", window[index:])
        if option is None:
            return False  # the program comes from standard input (or a script file is named): it runs the download
        index += option.end()
        flag = option.group()
        while index < len(window) and window[index] in " \t":
            index += 1
        if language == "python" and flag == "-m":
            module = re.match(r"[\w.]+", window[index:])
            if module is None or module.group() not in _DATA_MODULES:
                return False
            index += module.end()
            break
        if _CODE_OPTION[language].match(flag):
            quoted = _quoted(window, index)
            if quoted is None or quoted[0] is None:
                return False
            program, index = quoted
            break
        if flag == "-":
            return False
    if program is not None and not _only_reads(program):
        return False
    rest = window[index:]
    segment = rest[:_SEGMENT_END.search(rest).start()]
    for piece in segment.split("|")[1:]:
        words = piece.split()
        if not words or words[0] not in _FILTERS:
            return False
    return True


def _only_reads(program: str) -> bool:
    """No word of `program`, whole or as a part of a longer name, could run, load or store what it reads."""
    rest = _JSON_LOAD.sub(" ", program)
    return bool(program.strip()) and not _RUNS.search(rest) and \
        not any(part.lower() in _RUN_PARTS for part in _NAME_PART.findall(rest))


def program_only_reads(name: str, words: tuple[str, ...]) -> bool:
    """The parsed-script twin of `stdin_is_data`: an interpreter op (`python3 -c PROGRAM`, `python3 -m json.tool`,
    `node -e PROGRAM`) whose program, seen by the reader, only reads its input. Words the reader could not see are
    "" and never pass; what the op's output feeds is judged as its own op."""
    language = re.sub(r"[0-9.]+\Z", "", name.lower()).replace("nodejs", "node")
    option = _CODE_OPTION.get(language)
    if option is None:
        return False
    for at, word in enumerate(words[:4]):
        if not word.startswith("-") or word == "-" or at + 1 >= len(words):
            return False
        if language == "python" and word == "-m":
            return words[at + 1] in _DATA_MODULES
        if option.match(word):
            return _only_reads(words[at + 1])
    return False
