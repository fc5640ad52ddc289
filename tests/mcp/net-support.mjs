// What the end-to-end tests share about the network: a free loopback port.
import net from 'node:net';

// A port the kernel has free on 127.0.0.1 (bound, then released for a
// server the test starts).
export async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}
