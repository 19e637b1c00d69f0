// A TCP proxy in front of PostgreSQL that counts round trips: every Sync (the end of an extended-protocol
// statement) and every simple Query a client sends is one exchange the client waits for. Messages are
// framed as the protocol says: a type byte and a 32-bit length, after a start-up message without a type.
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/** The proxy: its port, the round trips counted so far, and how to stop it. */
export interface CountingProxy {
  port: number;
  roundTrips(): number;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;

/** Starts a proxy on 127.0.0.1 to `upstreamPort`. */
export async function startCountingProxy(upstreamPort: number): Promise<CountingProxy> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(upstreamPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    let startingUp = true;
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (startingUp) {
          if (pending.length < 8) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          if (pending.readInt32BE(4) !== SSL_REQUEST) startingUp = false;
          pending = pending.subarray(length);
        } else {
          if (pending.length < 5) break;
          const length = pending.readInt32BE(1) + 1;
          if (pending.length < length) break;
          const type = String.fromCharCode(pending[0] as number);
          if (type === 'S' || type === 'Q') count++;
          pending = pending.subarray(length);
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const closeBoth = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', closeBoth).on('error', closeBoth);
    upstream.on('close', closeBoth).on('error', closeBoth);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    roundTrips: () => count,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
