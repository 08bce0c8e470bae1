"""Download one Earthdata granule; requests logs in with the ~/.netrc entry for urs.earthdata.nasa.gov."""
import netrc
import sys
from pathlib import Path

import requests

login, _, password = netrc.netrc(Path.home() / ".netrc").authenticators("urs.earthdata.nasa.gov")
with requests.Session() as session:
    session.auth = (login, password)
    url = sys.argv[1]
    response = session.get(url, stream=True, timeout=120)
    response.raise_for_status()
    target = Path(url.rsplit("/", 1)[-1])
    with target.open("wb") as out:
        for chunk in response.iter_content(1 << 20):
            out.write(chunk)
print(target)
