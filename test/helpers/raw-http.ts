// Raw bytes over a socket, for requests no well-behaved client would send (smuggling shapes, bad syntax);
// over TLS (HTTP/1.1 by ALPN) for an https address.
import { connectRaw } from './transport.js';

/** Sends `bytes` to `url`'s host and port, and resolves with everything received until the server closes or `waitMs` pass. */
export function sendRaw(url: string, bytes: string, waitMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connectRaw(url);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      if ((error as NodeJS.ErrnoException).code === 'ECONNRESET') resolve(Buffer.concat(chunks).toString('latin1'));
      else reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.write(bytes);
  });
}

/** The status codes of every HTTP/1.1 answer in `raw`, in order. */
export function statusesIn(raw: string): number[] {
  return [...raw.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
}
