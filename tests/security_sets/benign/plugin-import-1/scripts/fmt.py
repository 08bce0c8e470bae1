import importlib
for name in ("json", "csv"):
    module = importlib.import_module(name)
    print(module.__name__)
