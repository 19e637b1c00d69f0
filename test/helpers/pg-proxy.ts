// A TCP proxy in front of PostgreSQL that counts round trips: every Sync (the end of an extended-protocol
// statement) and every simple Query a client sends is one exchange the client waits for. Messages are
// framed as the protocol says: a type byte and a 32-bit length, after a start-up message without a type.
import type { Socket } from 'node:net';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

/** The proxy: its port, the round trips counted so far, and how to stop it. */
export interface CountingProxy extends TcpProxy {
  roundTrips(): number;
}

const SSL_REQUEST = 80877103;

/** Starts a proxy on 127.0.0.1 to `upstreamPort`. */
export async function startCountingProxy(upstreamPort: number): Promise<CountingProxy> {
  let count = 0;
  const proxy = await startTcpProxy(upstreamPort, (client: Socket, upstream: Socket) => {
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
  });
  return { ...proxy, roundTrips: () => count };
}
