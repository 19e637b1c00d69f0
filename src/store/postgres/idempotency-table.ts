// Idempotency-Key answers and in-flight claims in PostgreSQL, seen by every instance: a repeat sent to
// another instance while the first request runs finds its claim, and after it finds its answer. A claim
// is one row, taken by an upsert that succeeds only when the row is free, already ours, or left by an
// instance that died (its lease ran out); its holder renews the lease while the request is in flight.
import type { Pool } from 'pg';
import type { IdempotencyTable, RememberedAnswer } from '../store.js';
import { orUnavailable } from './faults.js';

const CLAIM = {
  name: 'animal_store_claim',
  text: `INSERT INTO idempotency_claims (scope, key, claimant, until_ms) VALUES ($1, $2, $3, $5)
         ON CONFLICT (scope, key) DO UPDATE SET claimant = excluded.claimant, until_ms = excluded.until_ms
          WHERE idempotency_claims.claimant = excluded.claimant OR idempotency_claims.until_ms <= $4
         RETURNING claimant`,
};
const RENEW = {
  name: 'animal_store_renew_claim',
  text: 'UPDATE idempotency_claims SET until_ms = $4 WHERE scope = $1 AND key = $2 AND claimant = $3',
};
const RELEASE = {
  name: 'animal_store_release',
  text: 'DELETE FROM idempotency_claims WHERE scope = $1 AND key = $2 AND claimant = $3',
};
const FIND = {
  name: 'animal_store_find_answer',
  text: `SELECT fingerprint, status, body, expires_at FROM idempotency_answers
          WHERE scope = $1 AND key = $2 AND expires_at > $3`,
};

/** The idempotency table of a PostgreSQL store. */
export class PostgresIdempotencyTable implements IdempotencyTable {
  readonly #pool: Pool;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  claim(scope: string, key: string, claimant: string, nowMs: number, untilMs: number): Promise<boolean> {
    return orUnavailable(async () => {
      const result = await this.#pool.query({ ...CLAIM, values: [scope, key, claimant, nowMs, untilMs] });
      return result.rowCount === 1;
    });
  }

  renew(scope: string, key: string, claimant: string, untilMs: number): Promise<void> {
    return orUnavailable(async () => {
      await this.#pool.query({ ...RENEW, values: [scope, key, claimant, untilMs] });
    });
  }

  release(scope: string, key: string, claimant: string): Promise<void> {
    return orUnavailable(async () => {
      await this.#pool.query({ ...RELEASE, values: [scope, key, claimant] });
    });
  }

  find(scope: string, key: string, nowMs: number): Promise<RememberedAnswer | undefined> {
    return orUnavailable(async () => {
      const { rows } = await this.#pool.query<{
        fingerprint: string;
        status: number;
        body: string;
        expires_at: string;
      }>({
        ...FIND,
        values: [scope, key, nowMs],
      });
      const row = rows[0];
      if (row === undefined) return undefined;
      return { fingerprint: row.fingerprint, status: row.status, body: row.body, expiresAtMs: Number(row.expires_at) };
    });
  }
}

/** Deletes answers and claims whose time is over; run now and then, by any instance. */
export async function sweepExpired(pool: Pool, nowMs: number): Promise<void> {
  await pool.query('DELETE FROM idempotency_answers WHERE expires_at <= $1', [nowMs]);
  await pool.query('DELETE FROM idempotency_claims WHERE until_ms <= $1', [nowMs]);
}
