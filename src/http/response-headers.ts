// The header fields of one answer, kept as the flat list `[name, value, name, value, …]` that
// node:http's `writeHead` takes as it is. Names are lower-case, so setting a field twice replaces the
// first value, as a property of an object would.
//
// Why a list and not an object: an answer carries a dozen fields, added by several parts of the
// request path (the limiter, the route, CORS). On an object each addition is a property store whose
// shape differs from answer to answer, and `writeHead` walks an object's own properties one by one;
// a scan of a dozen names and a push cost less, and `writeHead` reads a list by index.

/** The header fields of one answer. */
export class ResponseHeaders {
  /** name, value, name, value, …; names lower-case. */
  readonly #fields: string[];

  /** Headers of an answer to the request `requestId` (every answer carries X-Request-Id). */
  constructor(requestId: string) {
    this.#fields = ['x-request-id', flat(requestId)];
  }

  /** Sets the field `name` (lower-case), replacing its value if it is set already. */
  set(name: string, value: string): void {
    flat(value);
    const fields = this.#fields;
    for (let index = 0; index < fields.length; index += 2) {
      if (fields[index] === name) {
        fields[index + 1] = value;
        return;
      }
    }
    fields.push(name, value);
  }

  /** Removes the field `name` (lower-case), if it is set. */
  remove(name: string): void {
    const fields = this.#fields;
    for (let index = 0; index < fields.length; index += 2) {
      if (fields[index] === name) {
        fields.splice(index, 2);
        return;
      }
    }
  }

  /** Sets every field of `record` (lower-case names). */
  setAll(record: Readonly<Record<string, string>>): void {
    for (const name in record) this.set(name, record[name] as string);
  }

  /** Sets every field of a list of `[name, value]` pairs (lower-case names). */
  setPairs(pairs: readonly (readonly [string, string])[]): void {
    for (let index = 0; index < pairs.length; index++) {
      const pair = pairs[index] as readonly [string, string];
      this.set(pair[0], pair[1]);
    }
  }

  /** The flat list for `res.writeHead(status, list)`; not to be changed but through `set`. */
  get list(): string[] {
    return this.#fields;
  }
}

/**
 * `value`, flattened. A string built by concatenation is a rope (a tree of its parts) until something
 * reads it as a whole. node:http checks every header value with a regular expression, and V8 runs a
 * regular expression over a rope on a slow path: it flattens the rope and then calls the compiled
 * expression through the runtime. Reading one character flattens the rope in place, for every later
 * reader (the result of the read is not needed). In a microbenchmark that saved about 45 ns a value,
 * and an answer builds three such values (its request id, the limit and the RateLimit field). On a
 * flat string the read costs next to nothing.
 */
function flat(value: string): string {
  value.charCodeAt(0);
  return value;
}
