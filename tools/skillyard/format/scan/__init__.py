"""The security scanner: what a skill's text and code would make an agent or a machine do.

Pure, like the rest of `format/`: text in, findings out; nothing here runs or imports a skill's code. `judge` scans one
file, `values` every parsed YAML value, `skill_level` what needs the whole skill; `context` is the per-file state the
behaviour rules (`exec_flows`, `rules`) share, and `read_python` reads Python with `ast`.
"""
