// CONNECT: Node hands such a request to a `connect` listener with the bare socket, and with none it
// closes the socket without a word. This service is not a proxy, so a CONNECT goes through the same
// listener as any request (its target is no route: 401, 404 or 405 as for any other method), on a
// response bound to that socket, and the connection is closed (both ways) after the answer. Bytes the
// client sent after the CONNECT head are never read as further requests.
import { type IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** The server's `connect` listener, answering through `listener`. */
export function answerConnect(listener: Listener): (req: IncomingMessage, socket: Duplex) => void {
  return (req, socket) => {
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Parameters<ServerResponse['assignSocket']>[0]);
    res.on('finish', () => {
      res.detachSocket(socket as Parameters<ServerResponse['detachSocket']>[0]);
      // Ended only, the socket would stay half-open for as long as the client keeps its side: node:http
      // no longer tracks it, so no timeout would close it and a graceful stop would wait on it. Once
      // the answer is flushed it is destroyed.
      socket.end(() => socket.destroy());
    });
    socket.on('error', () => socket.destroy());
    listener(req, res);
  };
}
