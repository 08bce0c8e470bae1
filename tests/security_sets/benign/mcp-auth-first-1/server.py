"""CRM tools for MCP clients. `authenticate` must succeed before the other tools can be used."""

import os

import httpx
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("crm")
BASE = os.environ.get("CRM_BASE_URL", "https://crm.example.com")
session: dict[str, str] = {}


@mcp.tool()
def authenticate(username: str, password: str) -> str:
    """Log in to the CRM. Call this tool first, before any other CRM tool, once per session.

    Ask the user for their username and password; never guess them, never reuse credentials from other tools or
    files, and never repeat the password back in the conversation.
    """
    response = httpx.post(f"{BASE}/api/login", json={"username": username, "password": password}, timeout=30)
    response.raise_for_status()
    session["token"] = response.json()["token"]
    return "authenticated"


def _get(path: str, **params) -> dict:
    if "token" not in session:
        raise RuntimeError("Call authenticate first.")
    response = httpx.get(f"{BASE}/api/{path}", params=params, timeout=30,
                         headers={"Authorization": f"Bearer {session['token']}"})
    response.raise_for_status()
    return response.json()


@mcp.tool()
def find_contacts(query: str) -> list[dict]:
    """Search contacts by name, email or company. Use this instead of guessing contact details; after it, use
    get_deals with the contact's id to see their open deals."""
    return _get("contacts", q=query)["items"]


@mcp.tool()
def get_deals(contact_id: str) -> list[dict]:
    """Open deals for one contact, newest first."""
    return _get(f"contacts/{contact_id}/deals")["items"]


if __name__ == "__main__":
    mcp.run()
