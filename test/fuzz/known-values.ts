// What the fuzzer learnt from earlier answers (ids, next links, cursors, Idempotency-Keys already sent),
// so that requests reach things that exist. A generated request names a pool and a fraction; the value
// is chosen when it is sent, from what is known by then, which keeps runs of one seed the same.
import { Members } from './json-text.js';

/** A value to take from a pool of learnt values when the request is sent (`fallback` while it is empty). */
export class KnownValue {
  constructor(
    readonly pool: string,
    readonly pick: number,
    readonly fallback: unknown,
  ) {}
}

/** How many values a pool keeps: the most recent, as those are the likeliest to still exist. */
const POOL_SIZE = 256;

/** The pools of learnt values. */
export class KnownValues {
  readonly #pools = new Map<string, unknown[]>();

  /** Remembers `value` in `pool` (once). */
  add(pool: string, value: unknown): void {
    let values = this.#pools.get(pool);
    if (values === undefined) this.#pools.set(pool, (values = []));
    if (values.includes(value)) return;
    values.push(value);
    if (values.length > POOL_SIZE) values.shift();
  }

  /** The value a KnownValue stands for now. */
  choose(known: KnownValue): unknown {
    const values = this.#pools.get(known.pool);
    if (values === undefined || values.length === 0) return known.fallback;
    // Squared, the pick leans towards the most recent values: those most likely still in the state
    // a request needs (an animal still available, an order still placed).
    return values[values.length - 1 - Math.min(values.length - 1, Math.floor(known.pick ** 2 * values.length))];
  }

  /** `value` with every KnownValue in it (in arrays, plain objects and Members too) replaced by its choice. */
  resolve(value: unknown): unknown {
    if (value instanceof KnownValue) return this.choose(value);
    if (Array.isArray(value)) return value.map((item) => this.resolve(item));
    if (value instanceof Members)
      return new Members(value.entries.map(([name, member]) => [name, this.resolve(member)] as const));
    if (
      typeof value === 'object' &&
      value !== null &&
      [Object.prototype, null].includes(Object.getPrototypeOf(value))
    ) {
      const resolved: Record<string, unknown> = {};
      for (const [name, member] of Object.entries(value)) resolved[name] = this.resolve(member);
      return resolved;
    }
    return value;
  }
}

/** The pool of the ids of a collection (`/pets`): path parameters that follow it pick from there. */
export function idPool(collection: string): string {
  return `id ${collection}`;
}

/** The pool of every id of a JSON type ('integer' or 'string'), whatever its collection. */
export function anyIdPool(type: 'integer' | 'string'): string {
  return `any ${type} id`;
}

/** The pool of the values seen for a query parameter in next links (cursors above all). */
export function queryPool(name: string): string {
  return `query ${name}`;
}

/** The pool of the values already sent in a header (for replays of an Idempotency-Key). */
export function headerPool(name: string): string {
  return `header ${name.toLowerCase()}`;
}

/** The pool of the next links (path and query) an operation's answers gave. */
export function linkPool(operationId: string): string {
  return `link ${operationId}`;
}
