// A TCP proxy on 127.0.0.1 in front of a server of this machine, for tests that watch or hold what
// crosses it: each client connection gets its own connection upstream, and `connected` decides how
// bytes go between the two. Closing one side closes the other.
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A started proxy: its port, and how to stop it (every connection closed). */
export interface TcpProxy {
  port: number;
  close(): Promise<void>;
}

/** Starts a proxy to `upstreamPort`; `connected` is given each client and its upstream connection. */
export async function startTcpProxy(
  upstreamPort: number,
  connected: (client: Socket, upstream: Socket) => void,
): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(upstreamPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    connected(client, upstream);
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
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}
