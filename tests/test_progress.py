"""The shared progress line: on a terminal for long work, silent otherwise."""

from __future__ import annotations

from skillyard.cli.common import Progress


def test_progress_counts_on_stderr_when_enabled(capsys):
    with Progress("refreshing sources", 2, enabled=True, delay=0) as progress:
        progress.advance()
        progress.advance()
    err = capsys.readouterr().err
    assert "refreshing sources: 2/2" in err and err.endswith("\n")


def test_progress_is_silent_when_disabled(capsys):
    with Progress("checking skills", 3, enabled=False, delay=0) as progress:
        for _ in range(3):
            progress.advance()
    assert capsys.readouterr().err == ""
