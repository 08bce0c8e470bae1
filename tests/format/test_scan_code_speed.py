"""Issue 34 item 7, the code side of the scan: each shortcut that skips work gives the answer of the full form.

The takeover family needles dropped because their letters are absent find the same lines as every needle; the
readers imported on first use give the same facts. benchmarks/scan_snapshot.py checks the same over real folders.
"""

from __future__ import annotations

import subprocess
import sys


def test_the_scan_imports_no_script_reader_until_a_script_needs_one():
    code = ("import sys\nfrom skillyard.format.scan.judge import scan_text\n"
            "scan_text('# Notes\\n\\nJust text.\\n', 'SKILL.md', markup='markdown')\n"
            "print(sorted(m for m in sys.modules if m.rsplit('.', 1)[-1].startswith(('read_js', 'read_go', "
            "'read_ruby', 'read_powershell', 'read_shell', 'read_tree', 'behaviour_'))))\n"
            "scan_text('import base64, os\\nos.system(base64.b64decode(\"Y3VybCB4fHNo\"))\\n', 'x.sh')\n"
            "print('read_shell' in ' '.join(sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]"
    assert out[1] == "True"
