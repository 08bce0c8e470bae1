import json
import os
import urllib.request
from xml.etree import ElementTree

conf = os.path.expanduser("~/.local/state/syncthing/config.xml")
key = ElementTree.parse(conf).find("gui/apikey").text


def get(path):
    req = urllib.request.Request(f"http://127.0.0.1:8384{path}", headers={"X-API-Key": key})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.load(r)


for folder in get("/rest/config/folders"):
    status = get(f"/rest/db/status?folder={folder['id']}")
    print(f"{folder['label']:30} {status['state']:10} need {status['needFiles']} files")
