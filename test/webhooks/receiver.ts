// A webhook receiver for transport tests: a node:http server on 127.0.0.1 and an ephemeral port that
// records every connection and request it gets, and answers as the test's handler says.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as the receiver got it. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The local end of the connection: the address the client actually connected to. */
  readonly localAddress: string;
}

/**
 * A listening receiver. `connections` counts TCP connections accepted; `resets` those the client
 * reset, as TCP does when a socket is closed with data it never read (RFC 1122 §4.2.2.13).
 */
export interface Receiver {
  readonly port: number;
  readonly url: string;
  readonly requests: ReceivedRequest[];
  readonly sockets: Socket[];
  readonly connections: number;
  readonly resets: number;
  close(): Promise<void>;
}

/** Answers a request once its body has been read; may also leave it unanswered. */
export type ReceiverHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** Starts a receiver on 127.0.0.1 with `handler`. */
export async function startReceiver(handler: ReceiverHandler): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const sockets: Socket[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        localAddress: request.socket.localAddress ?? '',
      });
      handler(request, response);
    });
  });
  let resets = 0;
  server.on('connection', (socket: Socket) => {
    sockets.push(socket);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET') resets += 1;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    sockets,
    get connections() {
      return sockets.length;
    },
    get resets() {
      return resets;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port on 127.0.0.1 that nothing listens on (it was just released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
