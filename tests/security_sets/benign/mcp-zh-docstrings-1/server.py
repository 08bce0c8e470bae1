"""和风天气 MCP 服务器：城市查询、实时天气、三天预报。"""

import os

import httpx
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("weather-zh")
KEY = os.environ["QWEATHER_KEY"]


@mcp.tool()
def lookup_city(name: str) -> list[dict]:
    """按名称查询城市，返回城市 ID。

    在调用 current_weather 或 forecast_3d 之前，请先调用此工具获取城市 ID；不要猜测 ID。
    """
    r = httpx.get("https://geoapi.qweather.com/v2/city/lookup", params={"location": name, "key": KEY}, timeout=20)
    r.raise_for_status()
    return [{"id": c["id"], "name": c["name"], "adm": c["adm1"]} for c in r.json().get("location", [])]


@mcp.tool()
def current_weather(city_id: str) -> dict:
    """查询城市的实时天气（温度、体感温度、天气现象、风向风力）。只返回数据，不要向用户编造未返回的信息。"""
    r = httpx.get("https://devapi.qweather.com/v7/weather/now", params={"location": city_id, "key": KEY}, timeout=20)
    r.raise_for_status()
    return r.json()["now"]


@mcp.tool()
def forecast_3d(city_id: str) -> list[dict]:
    """查询未来三天的天气预报。无需向用户确认即可调用，此工具只读取公开数据。"""
    r = httpx.get("https://devapi.qweather.com/v7/weather/3d", params={"location": city_id, "key": KEY}, timeout=20)
    r.raise_for_status()
    return r.json()["daily"]


if __name__ == "__main__":
    mcp.run()
