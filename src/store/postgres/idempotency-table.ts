// Idempotency-Key answers and in-flight claims in PostgreSQL, seen by every instance: a repeat sent to
// another instance while the first request runs finds its claim, and after it finds its answer. A claim
// is one row, taken by an upsert that succeeds only when the row is free, already ours, or left by an
// instance that died: one whose life lock (delivery-channel.ts) the server no longer holds, which it
// lets go of the moment the process dies, or, whatever happened, one whose lease ran out. A claim is
// stored as `instance claimant`; claims of earlier releases, without the instance, wait for the lease.
import type { Pool } from 'pg';
import type { IdempotencyTable, RememberedAnswer } from '../store.js';
import { LIFE_LOCK_CLASS } from './delivery-channel.js';
import { orUnavailable } from './faults.js';

/** Whether the instance that made claim `c` (of this release) no longer holds its life lock. */
const CLAIMANT_IS_GONE = `
  position(' ' in c.claimant) > 0 AND NOT EXISTS (
    SELECT 1 FROM pg_locks
     WHERE locktype = 'advisory' AND granted AND classid = ${LIFE_LOCK_CLASS}::oid
       AND objid = hashtext(split_part(c.claimant, ' ', 1))::oid AND objsubid = 2)`;

const CLAIM = {
  name: 'animal_store_claim',
  text: `INSERT INTO idempotency_claims AS c (scope, key, claimant, until_ms) VALUES ($1, $2, $3, $5)
         ON CONFLICT (scope, key) DO UPDATE SET claimant = excluded.claimant, until_ms = excluded.until_ms
          WHERE c.claimant = excluded.claimant OR c.until_ms <= $4 OR ${CLAIMANT_IS_GONE}
         RETURNING claimant`,
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
  /** This instance's name, before each of its claimants. */
  readonly #instance: string;

  /** Claims in `pool` for `instance`, the name its life lock is held by (delivery-channel.ts). */
  constructor(pool: Pool, instance: string) {
    this.#pool = pool;
    this.#instance = instance;
  }

  claim(scope: string, key: string, claimant: string, nowMs: number, untilMs: number): Promise<boolean> {
    return orUnavailable(async () => {
      const values = [scope, key, `${this.#instance} ${claimant}`, nowMs, untilMs];
      const result = await this.#pool.query({ ...CLAIM, values });
      return result.rowCount === 1;
    });
  }

  release(scope: string, key: string, claimant: string): Promise<void> {
    return orUnavailable(async () => {
      await this.#pool.query({ ...RELEASE, values: [scope, key, `${this.#instance} ${claimant}`] });
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
