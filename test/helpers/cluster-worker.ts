// A tiny worker for the cluster primary's tests: answers every request with its pid, `/slow` after
// 300 ms, `/crash` by exiting 1; says on stderr when a slow request arrived; on a stop signal stops taking connections, finishes
// what it serves, prints "drained by pid N" and exits 0. WORKER_FAIL=CODE makes it exit at start.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

if (process.env.WORKER_FAIL !== undefined) process.exit(Number(process.env.WORKER_FAIL));
const server = createServer((request, response) => {
  const answer = (): void => {
    response.setHeader('connection', 'close');
    response.end(String(process.pid));
  };
  if (request.url === '/crash') process.exit(1);
  if (request.url === '/slow') {
    process.stderr.write(`slow request at pid ${process.pid}\n`);
    setTimeout(answer, 300);
  } else answer();
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.send?.({ animalStore: 'listening', text: `listening on http://127.0.0.1:${port}\n` });
});
const stop = (): void => {
  server.close(() => {
    process.stdout.write(`drained by pid ${process.pid}\n`);
    process.exit(0);
  });
};
// As the service does: every stop signal drains (a terminal closing sends SIGHUP to the whole group).
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, stop);
