// Listening and draining. Only `listen` opens a port; a graceful stop keeps the port open while requests
// are in flight, so that new ones (a health probe, a load balancer that has not noticed yet) get a prompt
// 503 instead of a refused connection, then closes the port, and each connection once it has been told
// to close or has stayed idle (connection-drain.ts).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { assertKnownOptions } from '../config/option-names.js';
import type { Settings } from '../config/settings.js';
import { clientErrorListener } from '../http/client-errors.js';
import { answerConnect } from '../http/connect.js';
import type { Dispatcher } from '../http/dispatch.js';
import { closeListener, ConnectionDrain } from './connection-drain.js';

/** How long a stop lets in-flight requests finish before cutting their connections. */
const CLOSE_GRACE_MS = 10_000;
/** How often a stopping service looks whether its last request has been answered. */
const DRAIN_POLL_MS = 10;

/** Where a service listens: its origin (`url`), the API's address (`apiUrl`, url + base path) and the server. */
export interface Listening {
  url: string;
  apiUrl: string;
  server: Server;
  /** Where GET /metrics is served, when metrics are on (`metricsPort`). */
  metricsUrl?: string;
}

/** The servers of one service: opened by `listen`, drained by `drain`. */
export class Listeners {
  readonly #settings: Settings;
  readonly #handler: Dispatcher;
  readonly #servers: Server[] = [];
  readonly #connections = new ConnectionDrain();

  constructor(settings: Settings, handler: Dispatcher) {
    this.#settings = settings;
    this.#handler = handler;
  }

  /** Opens a port (the settings' unless given) and resolves once it listens. */
  async listen(options: { port?: number; host?: string } = {}): Promise<Listening> {
    assertKnownOptions(options, ['port', 'host'], 'listen ');
    const settings = this.#settings;
    const handler = this.#connections.wrap(this.#handler);
    const server = createServer(
      {
        headersTimeout: settings.headersTimeoutMs,
        requestTimeout: settings.requestTimeoutMs,
        keepAliveTimeout: settings.keepAliveTimeoutMs,
        maxHeaderSize: settings.maxHeaderBytes,
        // The dispatcher checks Host itself, so a missing or repeated one gets the JSON 400 (RFC 9112 §3.2).
        requireHostHeader: false,
        // Node checks the two timeouts above only this often (30 s by default): check every second so
        // a slow client is cut off on time.
        connectionsCheckingInterval: 1000,
      },
      handler,
    );
    server.maxConnections = settings.maxConnections;
    this.#connections.watch(server);
    server.on('clientError', clientErrorListener(settings.maxHeaderBytes));
    // A CONNECT's answer is written on the bare socket and always closes it: nothing to drain.
    server.on('connect', answerConnect(this.#handler));
    // RFC 9110 §10.1.1 lets a server ignore an expectation it does not know; Node would answer a bare
    // 417 without the JSON body, so such a request is served as if it had no Expect header.
    server.on('checkExpectation', handler);
    // Expect: 100-continue is answered by the dispatcher once it wants the body, not by Node at once.
    server.on('checkContinue', this.#connections.wrap(this.#handler.checkContinue));
    const host = options.host ?? settings.host;
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(options.port ?? settings.port, host, () => {
        server.off('error', fail);
        done();
      });
    });
    this.#servers.push(server);
    const { port } = server.address() as AddressInfo;
    const shownHost = host.includes(':') ? `[${host}]` : host;
    const url = `http://${shownHost}:${port}`;
    return { url, apiUrl: `${url}${settings.basePath}`, server };
  }

  /**
   * The stop: every answer from now on says `Connection: close`; waits (up to CLOSE_GRACE_MS in all)
   * for the requests in flight, closes the ports, then each connection once it is told or idle; at the
   * bound, whatever is left is cut.
   */
  async drain(): Promise<void> {
    const deadlineMs = performance.now() + CLOSE_GRACE_MS;
    this.#connections.begin();
    while (this.#handler.inFlight() > 0 && performance.now() < deadlineMs) await delay(DRAIN_POLL_MS);
    const closed = Promise.all(this.#servers.map((server) => closeListener(server)));
    while (this.#connections.open > 0 && performance.now() < deadlineMs) {
      this.#connections.closeIdle();
      await delay(DRAIN_POLL_MS);
    }
    for (const server of this.#servers) server.closeAllConnections();
    await closed;
  }
}
