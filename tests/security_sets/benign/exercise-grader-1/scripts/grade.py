"""Run a student's exercise solution against the exercise's tests, in a subprocess with a time limit."""
import pathlib
import subprocess
import sys

exercise = pathlib.Path(sys.argv[1])
solution = exercise / "solution.py"
namespace: dict = {}
exec(compile(solution.read_text(), str(solution), "exec"), namespace)
result = subprocess.run([sys.executable, "-m", "pytest", "-q", str(exercise / "test_solution.py")],
                        capture_output=True, text=True, timeout=60)
print(result.stdout[-2000:])
