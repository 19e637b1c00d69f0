// A stand-in for the API in bench tests that need to control the server: a bare node:http server
// that answers every request `200 []` (an empty listing) after a delay the test chooses, and counts
// connections and the most requests in flight on one connection (above 1 only when the client
// pipelines: Node's server reads pipelined requests while earlier answers are still pending).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface FakeApi {
  /** http://127.0.0.1:PORT, for runLoad's `origin` or, with a base path appended, for --url. */
  origin: string;
  /** Requests received so far. */
  requests(): number;
  /** Connections accepted so far. */
  connections(): number;
  /** The most requests received and not yet answered on one connection at any moment. */
  maxInFlightPerConnection(): number;
  close(): Promise<void>;
}

/**
 * Starts the server on 127.0.0.1:0. `delayMs` is asked, for the request numbered `requestNumber`
 * (from 1, in arrival order) arriving at `nowMs` (performance.now()), how long to hold its answer.
 */
export async function startFakeApi(
  delayMs: (requestNumber: number, nowMs: number) => number = () => 0,
): Promise<FakeApi> {
  let requests = 0;
  let connections = 0;
  let maxInFlight = 0;
  const inFlight = new WeakMap<Socket, number>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    requests += 1;
    const socket = request.socket;
    const count = (inFlight.get(socket) ?? 0) + 1;
    inFlight.set(socket, count);
    if (count > maxInFlight) maxInFlight = count;
    response.once('finish', () => inFlight.set(socket, (inFlight.get(socket) ?? 1) - 1));
    const answer = (): void => {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': '2' }).end('[]');
    };
    const wait = delayMs(requests, performance.now());
    if (wait > 0) setTimeout(answer, wait);
    else answer();
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests: () => requests,
    connections: () => connections,
    maxInFlightPerConnection: () => maxInFlight,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}
