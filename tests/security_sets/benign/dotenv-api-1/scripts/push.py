"""Push CSV rows to Airtable; settings come from the project's .env."""
import csv
import sys

import requests
from dotenv import dotenv_values

config = dotenv_values(".env")
url = f"https://api.airtable.com/v0/{config['AIRTABLE_BASE']}/Imports"
headers = {"Authorization": f"Bearer {config['AIRTABLE_TOKEN']}"}
with open(sys.argv[1], newline="") as f:
    rows = [{"fields": row} for row in csv.DictReader(f)]
for start in range(0, len(rows), 10):
    requests.post(url, json={"records": rows[start:start + 10]}, headers=headers, timeout=30).raise_for_status()
print(f"pushed {len(rows)} rows")
