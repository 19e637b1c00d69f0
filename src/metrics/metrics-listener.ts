// The metrics listener: `GET /metrics` in the Prometheus text format on a port of its own, never on the
// public API's port, bound to 127.0.0.1 unless told otherwise, so that numbers about the service are not
// published to its clients by accident. What it serves is one service's metrics, or under `--workers`
// the primary's sum of every worker's (cluster-metrics.ts).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError } from '../core/errors.js';

/** What the listener serves: the text of a scrape and its content type. */
export interface MetricsSource {
  text(): Promise<string>;
  contentType: string;
}

/** A scrape that cannot be answered whole now (a worker did not answer): a 503 with this message. */
export class MetricsUnavailableError extends Error {
  override name = 'MetricsUnavailableError';
}

/** Opens the metrics port; resolves with its address once it listens. */
export async function listenMetrics(
  metrics: MetricsSource,
  port: number,
  host: string,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Only /metrics is served here.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Use GET.\n');
      return;
    }
    metrics.text().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        // A backing server that is away (the database) fails the scrape as one that can be retried.
        const unavailable =
          error instanceof MetricsUnavailableError || (error instanceof ApiError && error.status === 503);
        res.writeHead(unavailable ? 503 : 500, {
          'content-type': 'text/plain; charset=utf-8',
        });
        res.end(`metrics could not be collected: ${(error as Error).message}\n`);
      },
    );
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      done();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${shownHost}:${address.port}/metrics`, server };
}
