// Header checks that Node's parser does not make: Node keeps only the first of some repeated headers
// (Authorization, Content-Type) and joins others with ", ", so repeats are counted on the raw list.
import type { IncomingMessage } from 'node:http';

/** How many times the header `lowerCaseName` was sent, counted on `req.rawHeaders`. */
export function countHeader(req: IncomingMessage, lowerCaseName: string): number {
  const raw = req.rawHeaders;
  let count = 0;
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index] as string;
    if (name.length === lowerCaseName.length && name.toLowerCase() === lowerCaseName) count++;
  }
  return count;
}
