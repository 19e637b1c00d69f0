// Listening and draining. Only `listen` opens a port; a graceful stop keeps the port open while requests
// are in flight, so that new ones (a health probe, a load balancer that has not noticed yet) get a prompt
// 503 instead of a refused connection, then closes the port, and each HTTP/1.1 connection once it has
// been told to close or has stayed idle (connection-drain.ts).
//
// With a certificate (tlsCert, tlsKey) the port serves TLS, and on it HTTP/2 or HTTP/1.1 as the client
// chooses by ALPN (docs/deployment.md "TLS and HTTP/2"): one node:http2 server whose compatibility API
// hands the same dispatcher request and response objects shaped like node:http's, while HTTP/1.1
// connections are served by node:http's own code, with its timeouts and limits. A graceful stop sends
// every HTTP/2 session a GOAWAY at once (its requests in flight are answered; the client opens a new
// connection for the next ones), and certificates renewed on disk go to the next connections.
import type { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, Server, type ServerResponse } from 'node:http';
import {
  createSecureServer,
  type Http2SecureServer,
  type Http2ServerRequest,
  Http2ServerResponse,
  type ServerHttp2Session,
} from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { assertKnownOptions } from '../config/option-names.js';
import type { Settings } from '../config/settings.js';
import { clientErrorListener } from '../http/client-errors.js';
import { answerConnect } from '../http/connect.js';
import type { Dispatcher } from '../http/dispatch.js';
import { boundHttp2Request } from '../http/http2-timeout.js';
import { isHttp2 } from '../http/http2.js';
import type { TlsCertificates } from '../tls/tls-certificates.js';
import type { TlsPair } from '../tls/tls-pair.js';
import { closeListener, ConnectionDrain } from './connection-drain.js';
import { hstsValue } from './http-handler.js';

/** How long a stop lets in-flight requests finish before cutting their connections. */
const CLOSE_GRACE_MS = 10_000;
/** How often a stopping service looks whether its last request has been answered. */
const DRAIN_POLL_MS = 10;
/**
 * Requests one HTTP/2 connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS). Node's own
 * default is unbounded; RFC 9113 §6.5.2 advises no fewer than 100, and nginx allows 128. The service's
 * own bound on work is --max-in-flight, over all connections.
 */
export const MAX_CONCURRENT_STREAMS = 128;
/**
 * Header fields an HTTP/2 request may have, as node:http allows an HTTP/1.1 one (its maxHeadersCount),
 * and the four pseudo-header fields. Node's own HTTP/2 default, 128, resets a request that HTTP/1.1 serves.
 */
const MAX_HEADER_FIELDS = 2000 + 4;
/**
 * The HTTP/2 head advertised as acceptable (SETTINGS_MAX_HEADER_LIST_SIZE): the 64 KiB nghttp2 reads
 * anyway before the client has acknowledged the settings, or --max-header-bytes if larger. A head past
 * --max-header-bytes within it is answered 431 with the JSON body, as over HTTP/1.1 (request-checks.ts).
 */
const HTTP2_HEAD_READ_BYTES = 64 * 1024;

/** Where a service listens: its origin (`url`), the API's address (`apiUrl`, url + base path) and the server. */
export interface Listening {
  url: string;
  apiUrl: string;
  /** A node:http server, or with TLS a node:http2 secure server that also serves HTTP/1.1. */
  server: Server | Http2SecureServer;
  /** Where GET /metrics is served, when metrics are on (`metricsPort`). */
  metricsUrl?: string;
}

/**
 * node:http's settings of every HTTP/1.1 connection: a plain server's options, and what a node:http2
 * server with `allowHTTP1` reads from itself for the HTTP/1.1 connections it serves.
 */
interface Http1Settings {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  timeout: number;
  maxHeaderSize: number;
  requireHostHeader: boolean;
  connectionsCheckingInterval: number;
}

function http1Settings(settings: Settings): Http1Settings {
  return {
    headersTimeout: settings.headersTimeoutMs,
    requestTimeout: settings.requestTimeoutMs,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    // A socket on which no byte has moved for this long is cut. Between requests the keep-alive timeout
    // applies and before a request's end the two above: this one catches the client that stopped
    // reading its answers, whose socket would otherwise stay open for ever.
    timeout: settings.sendTimeoutMs,
    maxHeaderSize: settings.maxHeaderBytes,
    // The dispatcher checks Host itself, so a missing or repeated one gets the JSON 400 (RFC 9112 §3.2).
    requireHostHeader: false,
    // Node checks the two timeouts above only this often (30 s by default): check every second so
    // a slow client is cut off on time.
    connectionsCheckingInterval: 1000,
  };
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * `listener` as node:http2 types it. Its compatibility API passes objects of node:http's shape; where
 * they differ in what the dispatcher uses, src/http/http2.ts deals with it.
 */
function asHttp2(listener: Listener): (req: Http2ServerRequest, res: Http2ServerResponse) => void {
  return listener as unknown as (req: Http2ServerRequest, res: Http2ServerResponse) => void;
}

/** The servers of one service: opened by `listen`, drained by `drain`. */
export class Listeners {
  readonly #settings: Settings;
  readonly #handler: Dispatcher;
  readonly #tls: TlsCertificates | undefined;
  readonly #servers: (Server | Http2SecureServer)[] = [];
  /** The plain HTTP/1.1 connections, ended one by one at a stop. */
  readonly #connections = new ConnectionDrain();
  /** Open HTTP/2 sessions: a stop sends each a GOAWAY. */
  readonly #sessions = new Set<ServerHttp2Session>();
  /** Open TLS connections, HTTP/2 or HTTP/1.1: what a stop cuts when its grace is over. */
  readonly #tlsSockets = new Set<Socket>();
  #draining = false;

  constructor(settings: Settings, handler: Dispatcher, tls?: TlsCertificates) {
    this.#settings = settings;
    this.#handler = handler;
    this.#tls = tls;
  }

  /** Opens a port (the settings' unless given) and resolves once it listens. */
  async listen(options: { port?: number; host?: string } = {}): Promise<Listening> {
    assertKnownOptions(options, ['port', 'host'], 'listen ');
    const { port: askedPort, host: askedHost } = options;
    // Node would take a port of text as the path of a local socket, and an empty host as every interface.
    if (askedPort !== undefined && (!Number.isSafeInteger(askedPort) || askedPort < 0 || askedPort > 65535))
      throw new TypeError('listen option port must be a whole number from 0 to 65535');
    if (askedHost !== undefined && (typeof askedHost !== 'string' || askedHost.length === 0))
      throw new TypeError('listen option host must be an address such as "127.0.0.1" or "::"');
    const settings = this.#settings;
    const tls = this.#tls;
    const server = tls === undefined ? this.#plainServer() : this.#secureServer(tls);
    const host = options.host ?? settings.host;
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(options.port ?? settings.port, host, () => {
        server.off('error', fail);
        done();
      });
    });
    // A stop that began while the port was opening has already closed the ports it knew of.
    if (this.#draining) {
      await new Promise((done) => server.close(done));
      throw new Error('this animal store is closed; create a new one to listen again');
    }
    this.#servers.push(server);
    const { port } = server.address() as AddressInfo;
    const shownHost = host.includes(':') ? `[${host}]` : host;
    const url = `${tls === undefined ? 'http' : 'https'}://${shownHost}:${port}`;
    return { url, apiUrl: `${url}${settings.basePath}`, server };
  }

  #plainServer(): Server {
    const settings = this.#settings;
    const handler = this.#connections.wrap(this.#handler);
    const server = createServer(http1Settings(settings), handler);
    // The one setting createServer does not take as an option.
    server.timeout = settings.sendTimeoutMs;
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
    return server;
  }

  #secureServer(tls: TlsCertificates): Http2SecureServer {
    const settings = this.#settings;
    const handler = this.#handler;
    const hsts = hstsValue(settings);
    // Over HTTP/2 the request timeout is the service's own (http2-timeout.ts); over HTTP/1.1, Node's.
    const bounded =
      (listener: Listener): Listener =>
      (req, res) => {
        if (isHttp2(req)) boundHttp2Request(req, res, settings.requestTimeoutMs, hsts);
        listener(req, res);
      };
    const serve = bounded(handler);
    const server = createSecureServer(
      {
        ...secureContextOptions(tls.pair),
        allowHTTP1: true,
        // As node:http's own servers do: an answer is not held back waiting for an acknowledgement
        // (Nagle). node:http2 sets it on its sessions itself; this is for HTTP/1.1 on TLS.
        noDelay: true,
        // The TLS handshake comes before the request headers, and is bound like them.
        handshakeTimeout: settings.headersTimeoutMs,
        settings: {
          maxConcurrentStreams: MAX_CONCURRENT_STREAMS,
          maxHeaderListSize: Math.max(settings.maxHeaderBytes, HTTP2_HEAD_READ_BYTES),
        },
        maxHeaderListPairs: MAX_HEADER_FIELDS,
      },
      asHttp2(serve),
    );
    server.maxConnections = settings.maxConnections;
    // HTTP/1.1 connections are served by node:http's code, which reads its settings from the server.
    Object.assign(server, http1Settings(settings));
    server.on('clientError', clientErrorListener(settings.maxHeaderBytes, hsts));
    // A failed handshake has no HTTP to answer in: node:http2 would pass it on to `clientError`, whose
    // answer would be written as plain text into a TLS connection that never opened.
    server.removeAllListeners('tlsClientError');
    server.on('tlsClientError', (_error: Error, socket: Socket) => socket.destroy());
    // CONNECT: node:http passes the bare socket, node:http2 a request and a response like any other.
    const connect = answerConnect(handler);
    (server as EventEmitter).on('connect', (req: IncomingMessage, second: Duplex | ServerResponse) => {
      if (second instanceof Http2ServerResponse) serve(req, second as unknown as ServerResponse);
      else connect(req, second as Duplex);
    });
    server.on('checkExpectation', asHttp2(serve));
    server.on('checkContinue', asHttp2(bounded(handler.checkContinue)));
    server.on('secureConnection', (socket: Socket) => {
      this.#tlsSockets.add(socket);
      socket.once('close', () => this.#tlsSockets.delete(socket));
    });
    server.on('session', (session: ServerHttp2Session) => this.#openSession(session));
    // The next connections get a renewed certificate; open ones keep theirs.
    const stopFollowing = tls.onChange((pair) => server.setSecureContext(secureContextOptions(pair)));
    server.once('close', stopFollowing);
    return server;
  }

  #openSession(session: ServerHttp2Session): void {
    this.#sessions.add(session);
    session.once('close', () => this.#sessions.delete(session));
    // An idle connection is let go as HTTP/1.1's is after its keep-alive timeout; gracefully, so that
    // a request that is merely slow to answer is still answered. Answers its client does not read
    // (flow control holds them) would keep it open for ever: once nothing has moved on it for the send
    // timeout after that, it is cut.
    const { keepAliveTimeoutMs, sendTimeoutMs } = this.#settings;
    // node:http2 gives each session the server's `timeout` too, with a handler that destroys it at once;
    // here that setting is for the HTTP/1.1 connections, and sessions have their own two.
    session.removeAllListeners('timeout');
    session.setTimeout(keepAliveTimeoutMs, () => {
      session.close();
      session.setTimeout(sendTimeoutMs, () => session.destroy());
    });
    // Opened while the service stops: its first request gets the prompt 503, then the session ends.
    if (this.#draining) session.once('stream', (stream: Duplex) => stream.once('close', () => session.close()));
  }

  /**
   * The stop: every plain HTTP/1.1 answer from now on says `Connection: close`, and every HTTP/2 session
   * gets a GOAWAY; waits (up to CLOSE_GRACE_MS in all) for the requests in flight, closes the ports,
   * then each plain connection once it is told or idle; at the bound, whatever is left is cut.
   */
  async drain(): Promise<void> {
    this.#draining = true;
    const deadlineMs = performance.now() + CLOSE_GRACE_MS;
    this.#connections.begin();
    // HTTP/2 clients are told at once (GOAWAY) to send no new request on their connection; what they
    // sent before is answered.
    for (const session of this.#sessions) session.close();
    while (this.#handler.inFlight() > 0 && performance.now() < deadlineMs) await delay(DRAIN_POLL_MS);
    const plain = this.#servers.filter((server): server is Server => server instanceof Server);
    const secure = this.#servers.filter((server): server is Http2SecureServer => !(server instanceof Server));
    const closed = Promise.all([
      ...plain.map((server) => closeListener(server)),
      ...secure.map((server) => this.#stopSecureServer(server, Math.max(0, deadlineMs - performance.now()))),
    ]);
    while (this.#connections.open > 0 && performance.now() < deadlineMs) {
      this.#connections.closeIdle();
      await delay(DRAIN_POLL_MS);
    }
    for (const server of plain) server.closeAllConnections();
    await closed;
  }

  /** Stops accepting TLS connections, lets in-flight requests finish (for up to `graceMs`), then closes the rest. */
  #stopSecureServer(server: Http2SecureServer, graceMs: number): Promise<void> {
    return new Promise((done) => {
      const force = setTimeout(() => {
        for (const session of this.#sessions) session.destroy();
        for (const socket of this.#tlsSockets) socket.destroy();
      }, graceMs);
      force.unref();
      server.close(() => {
        clearTimeout(force);
        done();
      });
      // The node:http2 server has it too (for its HTTP/1.1 connections) where Node gives it one; its
      // sessions already had their GOAWAY.
      (server as Partial<Pick<Server, 'closeIdleConnections'>>).closeIdleConnections?.call(server);
    });
  }
}

/** What the TLS context is made of: the certificate (chain) and its key. */
function secureContextOptions(pair: TlsPair): { cert: Buffer; key: Buffer } {
  return { cert: pair.cert, key: pair.key };
}
