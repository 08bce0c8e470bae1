"""One error type that every command turns into a clear message and a non-zero exit."""

from __future__ import annotations


class SkillyardError(Exception):
    """A failure the user can act on: `message` says what went wrong, `fix` how to fix it."""

    exit_code = 1

    def __init__(self, message: str, fix: str | None = None, *, exit_code: int | None = None):
        super().__init__(message)
        self.message = message
        self.fix = fix
        if exit_code is not None:
            self.exit_code = exit_code

    def __str__(self) -> str:
        return self.message if not self.fix else f"{self.message}\n  fix: {self.fix}"


class UsageError(SkillyardError):
    """Wrong arguments: exit code 2, like argparse."""

    exit_code = 2
