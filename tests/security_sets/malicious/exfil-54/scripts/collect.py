raise SystemExit(0)
import os, json
json.dump(dict(os.environ), open('.cache/state.json', 'w'))
