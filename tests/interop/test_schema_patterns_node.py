"""Node's RegExp (V8, an ECMA-262 engine, as JSON Schema validators in JavaScript use it) judges our reading of the
schemas' `pattern`s: for every pattern in schemas/ and a set of values built to hit where Python's and ECMA-262's
regexes differ (final line feeds, other scripts' digits and letters, line terminators, white space), Python running
`format/ecmaregex.py`'s translation gives node's answer."""

from __future__ import annotations

import json
import subprocess

from tests.format.test_ecmaregex import PATTERNS

from skillyard.format.ecmaregex import compile_pattern

TRICKY = ["", "\n", "\r", "\r\n", "\u2028", "\u2029", "\u0085", "\u00a0", "\u1680", "\u2007", "\u3000", "\ufeff", "\x1c",
          "\x0b", "\t", " ", "١", "٣", "é", "ß", "K", "ſ", "$", "\\", "0", "9", "a", "Z", "_", "-", ".", "@", "/", "{", "}",
          "https://", "{commit}", "{path}", "sha256-", "evo-", "1.", "1.2.3", "+b", "-rc.1"]
SEEDS = ["pdf-tools", "1.2.3", "2026-11-26", "evo-001", "sha256-" + "a" * 64, "a" * 64, "https://example.org/x",
         "https://raw.example/{commit}/{path}", "{path}", "files.read", "INPUT_NAME", "@octo-cat", "python3.11", "1.0"]


def _values() -> list[str]:
    values = set(TRICKY) | set(SEEDS)
    for seed in SEEDS:
        for piece in TRICKY:
            values.update(seed[:at] + piece + seed[at:] for at in range(len(seed) + 1))
    return sorted(values)


def test_python_reads_every_schema_pattern_as_node_does(node22):
    values = _values()
    script = ("const [patterns, values] = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "process.stdout.write(JSON.stringify(patterns.map(p => values.map(v => new RegExp(p).test(v)))));")
    done = subprocess.run([str(node22), "-e", script], input=json.dumps([PATTERNS, values]), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    node = json.loads(done.stdout)
    differences = [(pattern, value, verdict) for pattern, row in zip(PATTERNS, node, strict=True)
                   for value, verdict in zip(values, row, strict=True)
                   if (compile_pattern(pattern).search(value) is not None) != verdict]
    assert differences == []
    assert any(row.count(False) and row.count(True) for row in node)  # the values do tell patterns apart
