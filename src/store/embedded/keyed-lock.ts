// Per-id mutual exclusion for the embedded store: what a row lock is to PostgreSQL. A change to a pet
// or an order waits for the change before it on the same id, then decides on the state that change
// left, so two orders for one pet give one order and one refusal, whichever store holds the data.

/** Runs functions one at a time per id, in the order they asked. */
export class KeyedLock<K = number> {
  /** The last run queued on each id; removed when it is also the last to finish. */
  readonly #tails = new Map<K, Promise<unknown>>();

  /** Runs `work` once every earlier run on `id` has settled; resolves or rejects as it does. */
  run<T>(id: K, work: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(id);
    const result = before === undefined ? work() : before.then(work, work);
    const tail = result.catch(() => {});
    this.#tails.set(id, tail);
    void tail.then(() => {
      if (this.#tails.get(id) === tail) this.#tails.delete(id);
    });
    return result;
  }
}
