// Reads of one turn of the event loop, asked of the database together: the requests read from the
// sockets in one turn each want a pet, or a page, and instead of a statement each (a write and a read
// on a pool connection, a bind and an execution in the server, each costing more than the read itself)
// they go as one statement whose rows answer each of them, in order. A read still takes one round trip,
// and waits for no more than the turn it was asked in (the statement is sent when the turn's sockets
// have been read: setImmediate runs after the poll phase), or is sent at once with MAX_READS others.
// A statement that fails fails each of its reads with the same error.

/** Reads one statement answers at most: a bound on its parameters and its reply. */
export const MAX_READS = 256;

interface Pending<Q, A> {
  requests: Q[];
  sent: boolean;
  answers: Promise<A[]>;
  settle: (answers: Promise<A[]>) => void;
}

/** Batches reads of type Q into statements answering A each. */
export class ReadBatch<Q, A> {
  readonly #run: (requests: readonly Q[]) => Promise<A[]>;
  #pending: Pending<Q, A> | undefined;

  /** `run` reads every request of a batch in one statement and answers them in order, one answer each. */
  constructor(run: (requests: readonly Q[]) => Promise<A[]>) {
    this.#run = run;
  }

  /** The answer to `request`, read with the other reads of this turn. */
  read(request: Q): Promise<A> {
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
    if (pending.requests.length >= MAX_READS) this.#send(pending);
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
