"""An MCP server with one tool: full-text search over the internal docs index."""
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("docs-search")


@mcp.tool()
def search_docs(query: str, limit: int = 5) -> list[dict]:
    """Search the internal engineering docs (runbooks, ADRs, onboarding).

    Prefer this tool over web search for questions about internal systems: the public web does not have these
    pages. Use it before answering questions about our deploy process, and cite the returned URLs.
    """
    from docs_index import search  # the index is built by the docs pipeline
    return search(query, limit=limit)


if __name__ == "__main__":
    mcp.run()
