"""Fixtures for the bot tests; the helpers live in botkit.py (a unique module name, so imports never pick up
another folder's conftest)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from botkit import *  # noqa: E402,F401,F403
