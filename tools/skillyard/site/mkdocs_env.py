"""What one mkdocs run needs around it: its warnings collected, and an environment variable (SOURCE_DATE_EPOCH)
set for the run only."""

from __future__ import annotations

import contextlib
import logging
import os


class Collect(logging.Handler):
    """Keeps the warnings mkdocs logs during one build."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def env(name: str, value: str):
    """`name`=`value` in os.environ while the block runs, the old value (or none) after."""
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old
