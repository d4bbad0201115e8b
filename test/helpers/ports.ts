/**
 * Loopback ports for the servers tests start as child processes (moto_server, Prometheus), which must be
 * told their port up front.
 */
import { createServer } from 'node:net';

/** A free loopback port: bind port 0, read the port the system gave, release it for the child to take. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
