"""List AWS CLI profile names (never their keys) with region and SSO account from ~/.aws/config."""

import configparser
import pathlib

home = pathlib.Path.home() / ".aws"
config = configparser.ConfigParser()
config.read(home / "config")
credentials = configparser.ConfigParser()
credentials.read(home / "credentials")

profiles = {}
for section in config.sections():
    name = section.removeprefix("profile ").strip()
    profiles[name] = {"region": config[section].get("region", "-"),
                      "account": config[section].get("sso_account_id", "-"),
                      "role": config[section].get("sso_role_name", "-"),
                      "static keys": "no"}
for name in credentials.sections():
    profiles.setdefault(name, {"region": "-", "account": "-", "role": "-"})["static keys"] = "yes"

width = max((len(n) for n in profiles), default=7)
print(f"{'profile':<{width}}  region          account       role                 static keys")
for name, info in sorted(profiles.items()):
    print(f"{name:<{width}}  {info['region']:<14}  {info['account']:<12}  {info['role']:<19}  {info['static keys']}")
