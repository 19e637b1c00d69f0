// A TCP proxy that can hold back the server's replies: what the client sends goes through at once,
// what the server answers waits while the proxy is held and goes out, in order, when it is released.
// It stands for a server on a busy host, which answers late but answers.
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/** The proxy: its port, the switch that holds the replies, and how to stop it. */
export interface HeldRepliesProxy {
  port: number;
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 to `upstreamPort`, holding replies from the start when `held`. */
export async function startHeldRepliesProxy(upstreamPort: number, held: boolean): Promise<HeldRepliesProxy> {
  const sockets = new Set<Socket>();
  const waiting: { client: Socket; chunk: Buffer }[] = [];
  const server: Server = createServer((client) => {
    const upstream = connect(upstreamPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (held) waiting.push({ client, chunk });
      else client.write(chunk);
    });
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
    hold() {
      held = true;
    },
    release() {
      held = false;
      for (const { client, chunk } of waiting.splice(0)) if (!client.destroyed) client.write(chunk);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
