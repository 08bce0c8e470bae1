"""The security scan's fast paths find exactly what one regular-expression pass over the whole file finds.

`security.scan_text` skips a rule's full pass when a C-speed pre-check says it cannot match, and runs the credential
rule only over the lines that hold an anchor; these properties hold the shortcuts to the plain passes, so speed
never costs a finding."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format.scan import judge as security
from skillyard.format.scan.precision import colour_escape  # ANSI colour escapes hide nothing: no finding

# Pieces that make up credential mentions and near misses, joined by the separators the rule is sensitive to.
PIECES = ["~", "$HOME", "%USERPROFILE%", "/home/", "al ice", "bob", "/root", "/", ".", ".ssh", ".aws", ".env",
          ".env.local", ".envrc", "os.environ", ".docker/config.json", ".git-credentials", "id_rsa", "id_ed25519",
          "xid_rsa", "/etc/shadow", "\n", " ", "'", '"', "`", "(", "-", "a", ".pub", "\r\n", "\t"]
PIPE_PIECES = ["curl", "wget", "fetch", "iwr", "Invoke-WebRequest", "New-Object", "iex", "(", " ", "|", "sh", "bash",
               "sudo ", "python3", "<(", "\n", "https://x.invalid/i.sh", "-fsSL", "Curl"]


def _texts(pieces: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces) | st.text(max_size=3), max_size=40).map("".join)


@settings(max_examples=600, deadline=None)
@given(_texts(PIPE_PIECES))
def test_pipe_precheck_never_skips_a_match(text: str) -> None:
    matches = [(m.start(), m.group()) for m in security.PIPE_TO_SHELL.finditer(text)]
    if matches:
        assert security._may_pipe_to_shell(text)
    findings = [f for f in security.scan_text(text, "x.md") if f.rule == "security-pipe-to-shell"]
    assert len(findings) == min(len(matches), security.MAX_FINDINGS_PER_RULE) + (
        1 if len(matches) > security.MAX_FINDINGS_PER_RULE else 0)


MARKDOWN_PIECES = ["<!--", "-->", "<!", "<?", "?>", "<![CDATA[", "]]>", "<!DOCTYPE x>", "<script>", "</script>", "<b hidden>",
                   "[x]:", "[//]: # (note)", "[x]", " \"title\"", "]:", "]", "[", ":", "<", ">", "!", "?", "|", "<(",
                   "iex", "curl", "\n", " ", "   ", "a", "https://x.invalid/i.sh", "| sh", "(", ")"]


@settings(max_examples=600, deadline=None)
@given(_texts(MARKDOWN_PIECES))
def test_pre_checks_never_change_the_findings(text: str) -> None:
    """Every hint pattern forced to match (so each rule's full pass always runs) gives the same findings."""
    always = security.re.compile("")
    hints = ("_HTML_HIDDEN_HINT", "_REF_DEF_HINT", "_PIPE_BAR_HINT", "_PIPE_PROCESS_HINT", "_PIPE_IEX_HINT")
    fast = security.scan_text(text, "x.md", markup="markdown")
    saved = {name: getattr(security, name) for name in hints}
    try:
        for name in hints:
            setattr(security, name, always)
        full = security.scan_text(text, "x.md", markup="markdown")
    finally:
        for name, pattern in saved.items():
            setattr(security, name, pattern)
    assert fast == full


BYTE_PIECES = ["\x00", "\x07", "\x0b", "\x1b[31m", "\x7f", "\x85", "\x9b", "\r", "\r\n", "\n", "\t", "\x0c", "é",
               "\u200b", "A" * 120, "b+/9" * 30, "=", " ", "a"]


@settings(max_examples=600, deadline=None)
@given(_texts(BYTE_PIECES))
def test_byte_classes_find_what_the_full_patterns_find(text: str) -> None:
    """Controls and base64 runs, found through one translate pass, are exactly CONTROL's and BASE64_BLOB's."""
    findings = security.scan_text(text, "notes.txt")
    rule_positions = {rule: [f.line for f in findings if f.rule == rule and "more" not in f.message]
                      for rule in ("security-control-character", "security-base64-blob")}
    body = " " + text[1:] if text.startswith("\ufeff") else text
    for rule, pattern in (("security-control-character", security.CONTROL),
                          ("security-base64-blob", security.BASE64_BLOB)):
        expected = [body.count("\n", 0, m.start()) + 1 for m in pattern.finditer(body)
                    if (pattern is security.CONTROL and not colour_escape(body, m.start())) or
                    (pattern is security.BASE64_BLOB and security._looks_encoded(body, m))]
        assert rule_positions[rule] == expected[:security.MAX_FINDINGS_PER_RULE]


@settings(max_examples=400, deadline=None)
@given(_texts(BYTE_PIECES + MARKDOWN_PIECES + ["\ufeff", "\ufeffx"]), st.sampled_from(["x.md", "notes.txt", "a.html"]))
def test_the_bytes_as_read_give_the_findings_of_the_text(text: str, name: str) -> None:
    """load_skill hands the scan each file's bytes as read; the findings are those of the decoded text alone, a
    leading byte-order mark included (the scan blanks it, so it encodes the text again there)."""
    markup = security.markup_of(name)
    assert security.scan_text(text, name, markup=markup, raw=text.encode("utf-8")) == \
        security.scan_text(text, name, markup=markup)
