import csv
import sys
import time
import urllib.robotparser
from urllib.parse import urljoin
from xml.etree import ElementTree

import requests
from bs4 import BeautifulSoup

UA = "sitemap-crawler/1.0 (+mailto:docs-team@example.org)"
base, out = sys.argv[1], sys.argv[2]
robots = urllib.robotparser.RobotFileParser(urljoin(base, "/robots.txt"))
robots.read()
xml = requests.get(urljoin(base, "/sitemap.xml"), headers={"User-Agent": UA}, timeout=20).text
urls = [e.text for e in ElementTree.fromstring(xml).iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
with open(out, "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["url", "title", "description"])
    for url in urls:
        if not robots.can_fetch(UA, url):
            continue
        soup = BeautifulSoup(requests.get(url, headers={"User-Agent": UA}, timeout=20).text, "html.parser")
        desc = soup.find("meta", attrs={"name": "description"})
        w.writerow([url, soup.title.string if soup.title else "", desc["content"] if desc else ""])
        time.sleep(1.0)
