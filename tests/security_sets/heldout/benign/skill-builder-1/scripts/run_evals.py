import importlib.util
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


report = load("report")
results = []
for check in sorted((HERE / "evals").glob("check_*.py")):
    done = subprocess.run([sys.executable, str(check), sys.argv[1]], capture_output=True, text=True, timeout=120)
    results.append((check.stem, done.returncode == 0, done.stdout.strip()))
print(report.table(results))
