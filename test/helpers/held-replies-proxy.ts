// A TCP proxy that can hold back the server's replies: what the client sends goes through at once,
// what the server answers waits while the proxy is held and goes out, in order, when it is released.
// It stands for a server on a busy host, which answers late but answers.
import type { Socket } from 'node:net';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

/** The proxy: its port, the switch that holds the replies, and how to stop it. */
export interface HeldRepliesProxy extends TcpProxy {
  hold(): void;
  release(): void;
}

/** Starts a proxy on 127.0.0.1 to `upstreamPort`, holding replies from the start when `held`. */
export async function startHeldRepliesProxy(upstreamPort: number, held: boolean): Promise<HeldRepliesProxy> {
  const waiting: { client: Socket; chunk: Buffer }[] = [];
  const proxy = await startTcpProxy(upstreamPort, (client, upstream) => {
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (held) waiting.push({ client, chunk });
      else client.write(chunk);
    });
  });
  return {
    ...proxy,
    hold() {
      held = true;
    },
    release() {
      held = false;
      for (const { client, chunk } of waiting.splice(0)) if (!client.destroyed) client.write(chunk);
    },
  };
}
