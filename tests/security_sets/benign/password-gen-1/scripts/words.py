"""A passphrase of N words from the bundled list, chosen with the secrets module."""
import secrets
import sys
from pathlib import Path

words = Path(__file__).with_name("words.txt").read_text().split()
count = int(sys.argv[1]) if len(sys.argv) > 1 else 5
print("-".join(secrets.choice(words) for _ in range(count)))
