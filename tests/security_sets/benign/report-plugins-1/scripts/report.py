"""Load the report plugins named in reports.toml from the local plugins package and run them."""
import importlib
import tomllib

config = tomllib.load(open("reports.toml", "rb"))
for name in config["plugins"]:
    module = importlib.import_module(f"plugins.{name}")
    getattr(module, "run")(config.get(name, {}))


class Shell:
    def dispatch(self, line: str) -> None:
        command, _, arg = line.partition(" ")
        handler = getattr(self, f"do_{command}", None)
        if handler is None:
            print(f"unknown: {command}")
        else:
            handler(arg)
