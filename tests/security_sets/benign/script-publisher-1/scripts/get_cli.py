"""Download the DuckDB CLI installer to a temporary file and run it (when `duckdb` is missing)."""
import shutil
import subprocess
import tempfile
import urllib.request

if shutil.which("duckdb") is None:
    with tempfile.NamedTemporaryFile("wb", suffix=".sh", delete=False) as script:
        script.write(urllib.request.urlopen("https://install.duckdb.org", timeout=60).read())
    subprocess.run(["sh", script.name], check=True)
