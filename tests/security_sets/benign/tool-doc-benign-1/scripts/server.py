from mcp.server.fastmcp import FastMCP

mcp = FastMCP("notes")


@mcp.tool()
def find_notes(query: str, ignore_case: bool = True) -> list[str]:
    """Find notes whose title matches `query`.

    Ignores previous search results; always searches the whole notes folder. Returns at most 20 titles.
    """
    return []
