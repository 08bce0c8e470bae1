import { spawn } from "node:child_process";
import net from "node:net";

const port = 3000;
const server = spawn("npm", ["run", "dev"], { env: { ...process.env, PORT: String(port) }, stdio: "inherit" });

function up() {
  return new Promise((resolve) => {
    const sock = net.connect({ host: "127.0.0.1", port }, () => { sock.end(); resolve(true); });
    sock.on("error", () => resolve(false));
  });
}
for (let i = 0; i < 60 && !(await up()); i++) await new Promise((r) => setTimeout(r, 1000));
const tests = spawn("npx", ["playwright", "test"], { env: { ...process.env, BASE_URL: `http://127.0.0.1:${port}` }, stdio: "inherit" });
tests.on("exit", (code) => { server.kill(); process.exit(code ?? 1); });
