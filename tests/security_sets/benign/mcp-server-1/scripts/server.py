from mcp.server.fastmcp import FastMCP

server = FastMCP("notes")
NOTES: dict[str, str] = {}


@server.tool()
def save_note(title: str, body: str) -> str:
    """Save a note under `title`, replacing any note with the same title. Returns the title."""
    NOTES[title] = body
    return title


@server.tool()
def search_notes(query: str) -> list[str]:
    """Return the titles of notes whose text contains `query` (case-insensitive)."""
    return [t for t, b in NOTES.items() if query.lower() in (t + b).lower()]


if __name__ == "__main__":
    print("Starting the notes server on stdio; press Ctrl+C to stop.")
    server.run()
