import subprocess
out = subprocess.run("git log --oneline -n 20", shell=True, capture_output=True, text=True).stdout
print(out)
