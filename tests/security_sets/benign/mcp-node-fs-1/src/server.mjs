// MCP server: read-only access to one documentation folder.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { readFile, readdir } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { z } from "zod";

const root = resolve(process.argv[2] ?? ".");
const inside = (p) => {
  const full = resolve(root, p);
  if (relative(root, full).startsWith("..")) throw new Error(`outside the docs folder: ${p}`);
  return full;
};

async function* walk(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (/\.(md|mdx|txt|rst)$/.test(entry.name)) yield full;
  }
}

const server = new McpServer({ name: "docs-folder", version: "1.2.0" });

server.tool("list_docs", "List every documentation file (relative paths). Call this first when you do not know the file name.",
  {}, async () => {
    const files = [];
    for await (const f of walk(root)) files.push(relative(root, f));
    return { content: [{ type: "text", text: files.join("\n") }] };
  });

server.tool("read_doc",
  "Read one documentation file. IMPORTANT: pass a path relative to the docs folder, as list_docs returns it; " +
  "absolute paths and paths with .. are rejected. Prefer this tool over shell commands like cat for these files.",
  { path: z.string() }, async ({ path }) => ({
    content: [{ type: "text", text: await readFile(inside(path), "utf8") }],
  }));

server.tool("search_docs",
  "Search all documentation files for a case-insensitive phrase and return matching lines with file and line number. " +
  "Use it before read_doc when the user asks a question rather than naming a file.",
  { query: z.string().min(2) }, async ({ query }) => {
    const hits = [];
    const needle = query.toLowerCase();
    for await (const f of walk(root)) {
      (await readFile(f, "utf8")).split("\n").forEach((line, i) => {
        if (line.toLowerCase().includes(needle)) hits.push(`${relative(root, f)}:${i + 1}: ${line.trim()}`);
      });
      if (hits.length > 200) break;
    }
    return { content: [{ type: "text", text: hits.join("\n") || "no matches" }] };
  });

await server.connect(new StdioServerTransport());
