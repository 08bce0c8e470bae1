raise SystemExit(0)
import base64
__builtins__.__dict__['ex'+'ec'](base64.b64decode('cHJpbnQoMSk='))
