// Clients that say what TLS and HTTP version they spoke: the certificate a new connection is served,
// a request over HTTP/2 on a session the test holds (node:http2), and one over HTTP/1.1 on TLS
// (node:https, ALPN http/1.1 only).
import { once } from 'node:events';
import { type ClientHttp2Session, connect as connectHttp2, type IncomingHttpHeaders } from 'node:http2';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { connect as connectTls, type PeerCertificate } from 'node:tls';
import { TEST_CA } from './transport.js';

/** What one request was answered. */
export interface Exchange {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The protocol ALPN chose: 'h2' or 'http/1.1'. */
  protocol: string;
}

/** The certificate a new TLS connection to `url` is served, and the protocol ALPN chose from `protocols`. */
export async function servedCertificate(
  url: string,
  protocols: string[] = ['h2', 'http/1.1'],
): Promise<{ subject: string; protocol: string }> {
  const { hostname, port } = new URL(url);
  const socket = connectTls({ host: hostname, port: Number(port), ca: TEST_CA, ALPNProtocols: protocols });
  try {
    await once(socket, 'secureConnect');
    const certificate: PeerCertificate = socket.getPeerCertificate();
    return { subject: String(certificate.subject.CN), protocol: String(socket.alpnProtocol) };
  } finally {
    socket.destroy();
  }
}

/** The common name of the certificate `session` was opened with. */
export function sessionCertificate(session: ClientHttp2Session): string {
  const socket = session.socket as unknown as { getPeerCertificate(): PeerCertificate };
  return String(socket.getPeerCertificate().subject.CN);
}

/** An HTTP/2 session to `url` (TLS, the test authorities). */
export async function openHttp2(url: string): Promise<ClientHttp2Session> {
  const session = connectHttp2(url, { ca: TEST_CA });
  session.on('error', () => {});
  await once(session, 'connect');
  return session;
}

/**
 * Sends one request on `session` (`headers` with `:method` and `:path`) and reads the whole answer;
 * `body`, when given, is sent and the stream ended. The stream's RST_STREAM code is in `rstCode`.
 */
export async function http2Exchange(
  session: ClientHttp2Session,
  headers: Record<string, string | string[]>,
  body?: string | Buffer,
): Promise<Exchange & { rstCode: number | undefined }> {
  const stream = session.request(headers, { endStream: body === undefined });
  if (body !== undefined) stream.end(body);
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  const [responseHeaders] = (await once(stream, 'response')) as [IncomingHttpHeaders];
  await once(stream, 'close');
  return {
    status: Number(responseHeaders[':status']),
    headers: responseHeaders,
    body: Buffer.concat(chunks),
    protocol: 'h2',
    rstCode: stream.rstCode,
  };
}

/** One request over HTTP/1.1 on TLS (a new connection, closed after). */
export async function https1Exchange(
  url: string,
  method: string,
  headers: Record<string, string | string[]> = {},
  body?: string,
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      url,
      // node:https passes the TLS options on to tls.connect, ALPN's too (which its types leave out).
      { method, headers, agent: false, ca: TEST_CA, ALPNProtocols: ['http/1.1'] } as RequestOptions,
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
            protocol: String((response.socket as unknown as { alpnProtocol: string | false }).alpnProtocol),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
