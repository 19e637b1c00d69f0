// The requests of one turn of the event loop, asked of the database together: the requests read from
// the sockets in one turn each want a pet, or a page, or to create a pet, and instead of a statement
// each (a write and a read on a pool connection, a bind and an execution in the server, for a create a
// commit, each costing more than the work itself) they go as one statement whose rows answer each of
// them, in order. Each still takes one round trip, and waits for no more than the turn it was asked in
// (the statement is sent when the turn's sockets have been read: setImmediate runs after the poll
// phase), or is sent at once with MAX_BATCH others. A statement that fails fails each of its requests
// with the same error; a statement that writes commits all of its requests' changes or none. Reads
// asked twice in one turn (the first page of a listing, a popular pet) are read once and share their
// answer, which no one changes: as a DataLoader coalesces the loads of one tick.

/** Requests one statement answers at most: a bound on its parameters and its reply. */
export const MAX_BATCH = 256;

interface Pending<Q, A> {
  requests: Q[];
  sent: boolean;
  answers: Promise<A[]>;
  settle: (answers: Promise<A[]>) => void;
  /** The answers asked for so far, by the request's key (when requests have keys). */
  asked: Map<string | number, Promise<A>> | undefined;
}

/** Batches requests of type Q into statements answering A each. */
export class StatementBatch<Q, A> {
  readonly #run: (requests: readonly Q[]) => Promise<A[]>;
  readonly #keyOf: ((request: Q) => string | number) | undefined;
  readonly #oneAtATime: boolean;
  #pending: Pending<Q, A> | undefined;
  /** With oneAtATime: whether a statement is under way, and the batches waiting for it to end, in order. */
  #running = false;
  readonly #waiting: Pending<Q, A>[] = [];

  /**
   * `run` carries out every request of a batch in one statement and answers them in order, one answer
   * each. With `keyOf`, requests of one batch with the same key are one request (reads only). With
   * `oneAtATime`, a batch is sent only once the statement before it has ended, and gathers the
   * requests asked meanwhile: for statements that the database runs one after the other anyway (under
   * a lock held to the commit), where a second one sent would only wait, holding a pooled connection,
   * and the requests after it would be cut into more, smaller statements.
   */
  constructor(
    run: (requests: readonly Q[]) => Promise<A[]>,
    keyOf?: (request: Q) => string | number,
    { oneAtATime = false }: { oneAtATime?: boolean } = {},
  ) {
    this.#run = run;
    this.#keyOf = keyOf;
    this.#oneAtATime = oneAtATime;
  }

  /** The answer to `request`, asked with the other requests of this turn. */
  ask(request: Q): Promise<A> {
    let pending = this.#pending;
    if (pending === undefined) {
      let settle!: (answers: Promise<A[]>) => void;
      const answers = new Promise<A[]>((resolve) => {
        settle = resolve;
      });
      const created: Pending<Q, A> = { requests: [], sent: false, answers, settle, asked: undefined };
      pending = created;
      this.#pending = created;
      setImmediate(() => this.#send(created));
    }
    const key = this.#keyOf?.(request);
    if (key !== undefined) {
      const same = pending.asked?.get(key);
      if (same !== undefined) return same;
    }
    const index = pending.requests.push(request) - 1;
    const answer = pending.answers.then((answers) => answers[index] as A);
    if (key !== undefined) (pending.asked ??= new Map()).set(key, answer);
    if (pending.requests.length >= MAX_BATCH) this.#send(pending);
    return answer;
  }

  #send(pending: Pending<Q, A>): void {
    if (pending.sent) return;
    if (this.#running) {
      if (!this.#waiting.includes(pending)) this.#waiting.push(pending);
      // A full batch stops gathering; the next request starts another.
      if (pending.requests.length >= MAX_BATCH && this.#pending === pending) this.#pending = undefined;
      return;
    }
    pending.sent = true;
    if (this.#pending === pending) this.#pending = undefined;
    let answers: Promise<A[]>;
    try {
      answers = this.#run(pending.requests);
    } catch (error) {
      answers = Promise.reject(error as Error);
    }
    pending.settle(answers);
    if (this.#oneAtATime) {
      this.#running = true;
      const ended = (): void => {
        this.#running = false;
        const next = this.#waiting.shift();
        if (next !== undefined) this.#send(next);
      };
      answers.then(ended, ended);
    }
  }
}
