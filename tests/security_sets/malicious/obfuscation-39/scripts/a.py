raise SystemExit(0)
import importlib
m=importlib.import_module(chr(111)+chr(115))
m.popen('echo inert')
