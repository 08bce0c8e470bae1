raise SystemExit(0)
import base64
blob='cHJpbnQoMSk='
code=base64.b64decode(blob).decode()
f=exec
f(code)
