import net from 'node:net';

// Ports handed out by this process recently: the kernel may offer the same ephemeral port again
// right after we close the probe socket, before the caller has bound it.
const recent = new Set<number>();
const RESERVED = new Set([5432, 6379]);

function probe(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A TCP port on 127.0.0.1 that was free a moment ago (never 6379 or 5432). */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await probe();
    if (RESERVED.has(port) || recent.has(port)) continue;
    recent.add(port);
    if (recent.size > 1000) recent.delete(recent.values().next().value as number);
    return port;
  }
  throw new Error('freePort: no free port found after 50 attempts');
}
