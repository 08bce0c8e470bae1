"""The security scanner: what a skill's text and code would make an agent or a machine do.

Pure, like the rest of `format/`: text in, findings out; nothing here runs or imports a skill's code. `judge` scans one
file, `values` every parsed YAML value, `skill_level` what needs the whole skill; `context` is the per-file state the
behaviour rules (`exec_flows`, `rules`) share, and `read_python` reads Python with `ast`.

Parsed behaviour (issue 34): `read_shell`, `read_powershell`, `read_js`, `read_ruby` and `read_go` (tree-sitter, via
`treesit` and the shared `read_tree`) turn a script into the common `facts` model, with strings folded (`fold`);
`flows` follows sources to sinks over it; one `behaviour_*` module per class judges the flows; `code_flows` is the
per-file entry judge.scan_text calls, `flows_skill` the flows that cross a skill's files.

Precision: `precision` and `everyday` say what honest skills do that reads like an attack; `vendor` whose host a URL
is on (a known publisher's registered domain, or the skill's declared homepage), never what the text says.
"""
