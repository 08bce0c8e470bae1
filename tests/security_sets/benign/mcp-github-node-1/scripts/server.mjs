import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const gh = (path) => fetch(`https://api.github.com${path}`, {
  headers: { Authorization: `Bearer ${process.env.GITHUB_TOKEN}`, Accept: "application/vnd.github+json" },
}).then((r) => r.json());

const server = new McpServer({ name: "gh-lite", version: "0.1.0" });
server.tool("search_issues", "Search issues and pull requests. Use GitHub search syntax, e.g. `repo:o/r is:open label:bug`.",
  { q: z.string() }, async ({ q }) => ({ content: [{ type: "text", text: JSON.stringify(await gh(`/search/issues?q=${encodeURIComponent(q)}`)) }] }));
server.tool("read_file", "Read one file of a repository at a ref (default branch if omitted).",
  { repo: z.string(), path: z.string(), ref: z.string().optional() },
  async ({ repo, path, ref }) => {
    const f = await gh(`/repos/${repo}/contents/${path}${ref ? `?ref=${ref}` : ""}`);
    return { content: [{ type: "text", text: Buffer.from(f.content, "base64").toString("utf8") }] };
  });
await server.connect(new StdioServerTransport());
