// The requests of one turn of the event loop, asked of the database together: the requests read from
// the sockets in one turn each want a pet, or a page, or to create a pet, and instead of a statement
// each (a write and a read on a pool connection, a bind and an execution in the server, for a create a
// commit, each costing more than the work itself) they go as one statement whose rows answer each of
// them, in order. Each still takes one round trip, and waits for no more than the turn it was asked in
// (the statement is sent when the turn's sockets have been read: setImmediate runs after the poll
// phase), or is sent at once with MAX_BATCH others. A statement that fails fails each of its requests
// with the same error; a statement that writes commits all of its requests' changes or none.

/** Requests one statement answers at most: a bound on its parameters and its reply. */
export const MAX_BATCH = 256;

interface Pending<Q, A> {
  requests: Q[];
  sent: boolean;
  answers: Promise<A[]>;
  settle: (answers: Promise<A[]>) => void;
}

/** Batches requests of type Q into statements answering A each. */
export class StatementBatch<Q, A> {
  readonly #run: (requests: readonly Q[]) => Promise<A[]>;
  #pending: Pending<Q, A> | undefined;

  /** `run` carries out every request of a batch in one statement and answers them in order, one answer each. */
  constructor(run: (requests: readonly Q[]) => Promise<A[]>) {
    this.#run = run;
  }

  /** The answer to `request`, asked with the other requests of this turn. */
  ask(request: Q): Promise<A> {
    let pending = this.#pending;
    if (pending === undefined) {
      let settle!: (answers: Promise<A[]>) => void;
      const answers = new Promise<A[]>((resolve) => {
        settle = resolve;
      });
      const created: Pending<Q, A> = { requests: [], sent: false, answers, settle };
      pending = created;
      this.#pending = created;
      setImmediate(() => this.#send(created));
    }
    const index = pending.requests.push(request) - 1;
    if (pending.requests.length >= MAX_BATCH) this.#send(pending);
    return pending.answers.then((answers) => answers[index] as A);
  }

  #send(pending: Pending<Q, A>): void {
    if (pending.sent) return;
    pending.sent = true;
    if (this.#pending === pending) this.#pending = undefined;
    let answers: Promise<A[]>;
    try {
      answers = this.#run(pending.requests);
    } catch (error) {
      answers = Promise.reject(error as Error);
    }
    pending.settle(answers);
  }
}
