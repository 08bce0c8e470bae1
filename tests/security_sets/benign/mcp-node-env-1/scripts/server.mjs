import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
import "dotenv/config";

const { OPENAI_API_KEY, OPENAI_BASE_URL = "https://api.openai.com/v1" } = process.env;
const server = new McpServer({ name: "openai-images", version: "1.0.0" });

server.tool("generate_image", "Generate one image from a prompt and return its URL.", { prompt: z.string() },
  async ({ prompt }) => {
    const res = await fetch(`${OPENAI_BASE_URL}/images/generations`, {
      method: "POST",
      headers: { Authorization: `Bearer ${OPENAI_API_KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify({ model: "gpt-image-1", prompt, size: "1024x1024" }),
    });
    const data = await res.json();
    return { content: [{ type: "text", text: data.data?.[0]?.url ?? JSON.stringify(data) }] };
  });

await server.connect(new StdioServerTransport());
