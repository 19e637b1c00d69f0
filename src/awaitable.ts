// A value, or a promise of one: what a backend answers when one implementation is in memory and
// another is across a network. Callers `await` it either way.

/** `T` now, or later. */
export type Awaitable<T> = T | Promise<T>;
