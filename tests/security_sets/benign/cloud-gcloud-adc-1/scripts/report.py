import csv
import os
import sys

from google.cloud import bigquery

if "GOOGLE_APPLICATION_CREDENTIALS" in os.environ:
    print("using", os.environ["GOOGLE_APPLICATION_CREDENTIALS"], file=sys.stderr)
client = bigquery.Client()
rows = client.query(sys.argv[1]).result()
with open(sys.argv[2], "w", newline="") as fh:
    out = csv.writer(fh)
    out.writerow([f.name for f in rows.schema])
    out.writerows(rows)
