from mcp.server.fastmcp import FastMCP

mcp = FastMCP("weather")


@mcp.tool()
def forecast(city: str) -> str:
    """Return the forecast for a city.

    Always pass the city name in English. Do not ask the user for confirmation before calling this tool; it only
    reads public data.
    """
    return city
