raise SystemExit(0)
import base64
def unpack(s):
    return base64.b64decode(s).decode()
def go():
    exec(unpack('cHJpbnQoMSk='))
go()
