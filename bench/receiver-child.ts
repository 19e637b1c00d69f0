// Child-process entry of receivers.ts: webhook receivers on 127.0.0.1, each a node:http server on a port
// of its own (a subscriber of its own, as different subscribers are different hosts), answering 200
// with no body at once, or, for the one named in `hang`, never. It counts what arrives and, when
// asked to record, stamps each pet.created event with the monotonic clock (shared by the processes
// of one machine), so the parent can set it against the moment it received the 201.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface ReceiverChildConfig {
  count: number;
  /** The index of a receiver that never answers, or -1. */
  hang: number;
  /** Stamp every pet.created event (the latency run), or only count (the throughput run). */
  record: boolean;
}

const config = JSON.parse(process.env.ANIMAL_STORE_BENCH_RECEIVERS ?? '') as ReceiverChildConfig;
let received = 0;
/** [receiver index, pet id, arrival in ms of the monotonic clock] of each stamped event since the last report. */
let stamps: [number, number, number][] = [];
const hanging: ServerResponse[] = [];

function handler(index: number): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const arrivedMs = Number(process.hrtime.bigint()) / 1e6;
    received++;
    if (index === config.hang) {
      request.resume();
      hanging.push(response);
      return;
    }
    if (!config.record) {
      request.resume();
      request.once('end', () => response.writeHead(200, { 'content-length': '0' }).end());
      return;
    }
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.once('end', () => {
      response.writeHead(200, { 'content-length': '0' }).end();
      const event = JSON.parse(body) as { type: string; data: { id: number } };
      if (event.type === 'pet.created') stamps.push([index, event.data.id, arrivedMs]);
    });
  };
}

const servers: Server[] = [];
const ports: number[] = [];
for (let index = 0; index < config.count; index++) {
  const server = createServer({ keepAliveTimeout: 30_000 }, handler(index));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  ports.push((server.address() as AddressInfo).port);
}
process.send?.({ ports });
process.on('message', (message: string) => {
  if (message === 'report') {
    process.send?.({ received, stamps });
    stamps = [];
  }
});
process.once('disconnect', () => {
  for (const response of hanging) response.destroy();
  for (const server of servers) server.closeAllConnections();
  process.exit(0);
});
