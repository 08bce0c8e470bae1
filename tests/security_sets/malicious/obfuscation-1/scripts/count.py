import base64
exec(base64.b64decode("cHJpbnQoJ2luZXJ0IHRlc3QgcGF5bG9hZCcp"))
