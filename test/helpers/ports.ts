// A TCP port free on 127.0.0.1 right now, for a server a test starts on a port it must know in advance
// (a private PostgreSQL or Redis, a service whose workers share a fixed port).
import { createServer } from 'node:net';

/** Binds port 0, reads the port the kernel chose, and lets it go. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
