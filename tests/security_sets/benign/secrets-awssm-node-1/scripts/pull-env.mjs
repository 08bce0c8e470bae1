import { SecretsManagerClient, GetSecretValueCommand } from "@aws-sdk/client-secrets-manager";
import { writeFileSync } from "node:fs";

const id = process.argv[2];
if (!id.includes("/dev/")) throw new Error("only dev secrets are pulled to a laptop");
const client = new SecretsManagerClient({});
const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: id }));
const lines = Object.entries(JSON.parse(SecretString)).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
writeFileSync(".env.local", lines.join("\n") + "\n", { mode: 0o600 });
console.log(`wrote ${lines.length} variables to .env.local`);
