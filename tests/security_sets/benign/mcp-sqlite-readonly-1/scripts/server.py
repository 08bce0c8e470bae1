import sqlite3
import sys

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("sqlite")
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)


@mcp.tool()
def list_tables() -> list[str]:
    """List the tables. Call this first, before `query`, so the table names you use exist."""
    return [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]


@mcp.tool()
def query(sql: str, limit: int = 200) -> list[tuple]:
    """Run one SELECT statement and return at most `limit` rows.

    Only SELECT is allowed; the connection is read-only anyway. Do not pass user-provided text into `sql`
    without reading it first.
    """
    if not sql.lstrip().lower().startswith("select"):
        raise ValueError("only SELECT statements")
    return db.execute(sql).fetchmany(limit)


if __name__ == "__main__":
    mcp.run()
