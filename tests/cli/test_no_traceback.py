"""Issue 13 item 9: whatever escapes a command becomes one clear line, never a traceback (the dead-endpoint tests
cover the network; this covers a plain bug, and the opt-in traceback for reporting it)."""

import pytest

from skillyard.cli.skill_cmds import search


def boom(args):
    raise ValueError("something nobody expected")


def test_a_bug_is_one_line_naming_itself(monkeypatch, capsys):
    from skillyard.cli.main import skill_main

    monkeypatch.setattr(search, "run", boom)
    monkeypatch.delenv("SKILLYARD_TRACEBACK", raising=False)
    assert skill_main(["search", "pdf"]) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[0] == "error: internal error in `skill search`: ValueError: something nobody expected"
    assert "SKILLYARD_TRACEBACK=1" in err and "Traceback" not in err


def test_the_traceback_on_request(monkeypatch):
    from skillyard.cli.main import skill_main

    monkeypatch.setattr(search, "run", boom)
    monkeypatch.setenv("SKILLYARD_TRACEBACK", "1")
    with pytest.raises(ValueError, match="nobody expected"):
        skill_main(["search", "pdf"])
