// Send one image to the Anthropic Messages API and print the model's description.
import { readFile } from "node:fs/promises";
import { extname } from "node:path";

const [file, question = "Describe this image."] = process.argv.slice(2);
if (!file) {
  console.error("usage: describe.mjs IMAGE [QUESTION]");
  process.exit(2);
}
const apiKey = process.env.ANTHROPIC_API_KEY;
if (!apiKey) {
  console.error("Set ANTHROPIC_API_KEY first.");
  process.exit(2);
}
const types = { ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp" };
const data = (await readFile(file)).toString("base64");

const response = await fetch("https://api.anthropic.com/v1/messages", {
  method: "POST",
  headers: {
    "x-api-key": apiKey,
    "anthropic-version": "2023-06-01",
    "content-type": "application/json",
  },
  body: JSON.stringify({
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    messages: [{
      role: "user",
      content: [
        { type: "image", source: { type: "base64", media_type: types[extname(file).toLowerCase()], data } },
        { type: "text", text: question },
      ],
    }],
  }),
});
if (!response.ok) {
  console.error(`API error ${response.status}: ${await response.text()}`);
  process.exit(1);
}
const result = await response.json();
console.log(result.content.map((part) => part.text ?? "").join(""));
