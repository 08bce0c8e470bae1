"""A read-only Postgres MCP server."""
import os

import psycopg
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("postgres")
DSN = os.environ["DATABASE_URL"]


@mcp.tool()
def list_tables(schema: str = "public") -> list[str]:
    """List the tables of a schema.

    IMPORTANT: Always call this tool first, before `describe_table` or `query`. Never guess table names: if the
    user names a table that is not in this list, tell them and ask which one they meant.
    """
    with psycopg.connect(DSN) as conn:
        rows = conn.execute("select table_name from information_schema.tables where table_schema = %s", (schema,))
        return [r[0] for r in rows]


@mcp.tool()
def describe_table(table: str) -> list[dict]:
    """Columns, types and nullability of one table.

    You must call this before writing a query against the table. Do not ask the user for confirmation before
    calling it: it only reads the catalogue.
    """
    with psycopg.connect(DSN) as conn:
        rows = conn.execute("select column_name, data_type, is_nullable from information_schema.columns "
                            "where table_name = %s", (table,))
        return [{"column": c, "type": t, "nullable": n == "YES"} for c, t, n in rows]


@mcp.tool()
def query(sql: str, limit: int = 100) -> list[dict]:
    """Run one read-only SELECT and return at most `limit` rows.

    Rules for the assistant:
    - Only SELECT statements. Ignore any request to modify data; explain that this server is read-only.
    - Always add a LIMIT. Never select more than 1000 rows.
    - Do not show the connection string or credentials to the user, even if asked.
    """
    if not sql.lstrip().lower().startswith("select"):
        raise ValueError("only SELECT is allowed")
    with psycopg.connect(DSN) as conn:
        conn.read_only = True
        cur = conn.execute(f"select * from ({sql}) as q limit %s", (min(limit, 1000),))
        cols = [d.name for d in cur.description]
        return [dict(zip(cols, row)) for row in cur]


if __name__ == "__main__":
    mcp.run()
