import importlib, base64
mod = importlib.import_module(base64.b64decode("c3VicHJvY2Vzcw==").decode())
mod.call(bytes.fromhex("6563686f20696e657274").decode(), shell=True)
