// The key operations: create a key (shown once; only its hash is kept), list, revoke, and check a key a
// person holds. They work on any store's key table, so `animal-store keys` manages the keys of a data
// directory and of a database alike, and a running service picks the changes up by watching the table.
import {
  type ApiKey,
  GENERATED_KEY_LENGTH,
  generateKey,
  hashKey,
  hasValidChecksum,
  isWellFormedKey,
  KEY_PREFIX,
  newKeyId,
  PLAN_NAMES,
  type PlanName,
} from '../auth/api-key.js';
import type { Clock } from '../clock.js';
import { limitsOf } from '../limits/plans.js';
import type { KeyTable } from '../store/store.js';

/** What creating a key takes: a plan, and for enterprise its two limits. */
export interface NewKeyRequest {
  plan: string;
  perMinute?: number | undefined;
  perDay?: number | undefined;
  name?: string | undefined;
}

/** A key that cannot be used, and why: a person's mistake the caller reports (not a bug). */
export class KeyProblem extends Error {
  override name = 'KeyProblem';
}

/** The operations on API keys. */
export class KeyService {
  readonly #table: KeyTable;
  readonly #clock: Clock;

  constructor(table: KeyTable, clock: Clock) {
    this.#table = table;
    this.#clock = clock;
  }

  /** Creates a key; the key itself is returned once and never stored. A bad request is a TypeError naming the flag. */
  async create(request: NewKeyRequest): Promise<{ key: string; record: ApiKey }> {
    if (!PLAN_NAMES.includes(request.plan as PlanName)) {
      throw new TypeError(`--plan must be free, pro, business or enterprise, not "${request.plan}"`);
    }
    const plan = request.plan as PlanName;
    const custom = request.perMinute !== undefined || request.perDay !== undefined;
    if (plan !== 'enterprise' && custom)
      throw new TypeError('--per-minute and --per-day are for --plan enterprise only');
    if (plan === 'enterprise' && (request.perMinute === undefined || request.perDay === undefined)) {
      throw new TypeError('--plan enterprise needs both --per-minute N and --per-day N');
    }
    const limits = limitsOf(
      plan,
      custom ? { perMinute: request.perMinute as number, perDay: request.perDay as number } : undefined,
    );
    const existing = new Set((await this.#table.list()).map((key) => key.id));
    let id = newKeyId();
    while (existing.has(id)) id = newKeyId();
    const key = generateKey();
    const record: ApiKey = {
      id,
      name: request.name ?? '',
      plan,
      perMinute: limits.perMinute,
      perDay: limits.perDay,
      hash: hashKey(key),
      createdAt: new Date(this.#clock.now()).toISOString(),
      revokedAt: null,
    };
    await this.#table.add(record);
    return { key, record };
  }

  /** Every key, revoked ones included. */
  list(): Promise<ApiKey[]> {
    return this.#table.list();
  }

  /** Revokes key `id`; a revoked key keeps its first revocation time. A KeyProblem when there is no such key. */
  async revoke(id: string): Promise<ApiKey> {
    const revoked = await this.#table.revoke(id, new Date(this.#clock.now()).toISOString());
    if (revoked === undefined) throw new KeyProblem(`no key has id "${id}"; see animal-store keys list`);
    return revoked;
  }

  /**
   * The active key whose value is `key`; otherwise a KeyProblem saying what is wrong with it. The
   * checksum is checked first, offline: it is what tells a mistyped key from a revoked one. `where`
   * names the key table in messages ("the keys file in ./data").
   */
  async check(key: string, where: string): Promise<ApiKey> {
    if (!isWellFormedKey(key)) {
      throw new KeyProblem(
        'this is not a well-formed key: 16 to 256 characters of A-Z a-z 0-9 - . _ ~ + /, then any "="',
      );
    }
    if (key.startsWith(KEY_PREFIX) && key.length !== GENERATED_KEY_LENGTH) {
      throw new KeyProblem(
        `this looks like a generated key but has ${key.length} characters, not ${GENERATED_KEY_LENGTH}: it was cut short or has extra characters; copy it again from where it was first shown`,
      );
    }
    if (hasValidChecksum(key) === false) {
      throw new KeyProblem('this key fails its checksum: it was mistyped; copy it again from where it was first shown');
    }
    const hash = hashKey(key);
    const found = (await this.#table.list()).find((entry) => entry.hash === hash);
    if (found === undefined) {
      throw new KeyProblem(
        `no key of ${where} has this value (keys given in ANIMAL_STORE_KEYS or library options are not kept there)`,
      );
    }
    if (found.revokedAt !== null) throw new KeyProblem(`key ${found.id} was revoked at ${found.revokedAt}`);
    return found;
  }
}
