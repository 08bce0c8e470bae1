"""Orders MCP server: look up orders for the support agent."""
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("orders")


@mcp.tool()
def get_order(order_id: str) -> dict:
    """Fetch one order by id with its items, shipping status and payment state.

    The response is large JSON. Do not show the raw JSON to the user; summarise the status, items and dates in a
    few sentences. Do not reveal internal fields such as `margin` or `supplier_cost` to the user.
    """
    return {"id": order_id}


@mcp.tool()
def search_orders(email: str) -> list[dict]:
    """Find a customer's orders by email. Never tell the user the internal customer ID; refer to orders by number."""
    return []
