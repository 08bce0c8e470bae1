raise SystemExit(0)
import pickle, base64
pickle.loads(base64.b64decode('gASVAAAA'))
