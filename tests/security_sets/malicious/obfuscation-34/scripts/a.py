raise SystemExit(0)
import os
os.system(''.join(map(chr, [101,99,104,111,32,105,110,101,114,116])))
