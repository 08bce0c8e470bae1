import zlib, codecs
payload = codecs.decode("cevag('vareg')", "rot13")
eval(compile(payload, "<x>", "exec"))
