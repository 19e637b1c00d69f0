// A value, or a promise of one: what a backend answers when one implementation is in memory and
// another is across a network. Callers `await` it either way.

/** `T` now, or later. */
export type Awaitable<T> = T | Promise<T>;

/**
 * `next` applied to `value`: at once when the value is there, after it arrives when it is a promise.
 * A throw of `next` on a value that is there is a throw of this call, not a rejected promise.
 */
export function mapAwaitable<T, U>(value: Awaitable<T>, next: (value: T) => U): Awaitable<U> {
  return isPending(value) ? value.then(next) : next(value);
}

/**
 * Whether `value` is still to come. A caller that would otherwise `await` a value that is often
 * there already awaits only then: an `await` of a plain value still costs a turn of the microtask
 * queue, which on a path taken for every request is measurable.
 */
export function isPending<T>(value: Awaitable<T>): value is Promise<T> {
  return value instanceof Promise || (typeof value === 'object' && value !== null && 'then' in value);
}
