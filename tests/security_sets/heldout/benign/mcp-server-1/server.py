from datetime import date
from pathlib import Path

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("calendar")
ICS = Path(__file__).parent / "calendar.ics"


@mcp.tool()
def events_on(day: str) -> list[str]:
    """List the events on one day.

    IMPORTANT: `day` must be an ISO 8601 date (2026-03-01). Before calling this tool, convert relative dates such as
    "next Tuesday" yourself; the tool does not guess. This tool never changes the calendar.
    """
    wanted = date.fromisoformat(day).strftime("%Y%m%d")
    lines = ICS.read_text().splitlines() if ICS.exists() else []
    return [l.split(":", 1)[1] for i, l in enumerate(lines) if l.startswith("SUMMARY") and wanted in "".join(lines[max(0, i - 3):i])]


if __name__ == "__main__":
    mcp.run()
