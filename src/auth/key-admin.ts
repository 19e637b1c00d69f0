// Key management on the keys file: create, list and revoke. Used by `animal-store keys`; a running
// service picks the changes up by watching the file (server.ts).
import { limitsOf } from '../limits/plans.js';
import { type ApiKey, generateKey, hashKey, newKeyId, PLAN_NAMES, type PlanName } from './api-key.js';
import { loadKeyFile, saveKeyFile } from './key-file.js';

/** What `keys create` takes. */
export interface NewKeyRequest {
  plan: string;
  perMinute?: number;
  perDay?: number;
  name?: string;
}

/** Creates a key in the keys file of `dir`; the key itself is returned once and never stored. */
export async function createKey(
  dir: string,
  request: NewKeyRequest,
  nowMs: number,
): Promise<{ key: string; record: ApiKey }> {
  if (!PLAN_NAMES.includes(request.plan as PlanName)) {
    throw new TypeError(`--plan must be free, pro, business or enterprise, not "${request.plan}"`);
  }
  const plan = request.plan as PlanName;
  const custom = request.perMinute !== undefined || request.perDay !== undefined;
  if (plan !== 'enterprise' && custom) throw new TypeError('--per-minute and --per-day are for --plan enterprise only');
  if (plan === 'enterprise' && (request.perMinute === undefined || request.perDay === undefined)) {
    throw new TypeError('--plan enterprise needs both --per-minute N and --per-day N');
  }
  const limits = limitsOf(
    plan,
    custom ? { perMinute: request.perMinute as number, perDay: request.perDay as number } : undefined,
  );
  const keys = await loadKeyFile(dir);
  let id = newKeyId();
  while (keys.some((key) => key.id === id)) id = newKeyId();
  const key = generateKey();
  const record: ApiKey = {
    id,
    name: request.name ?? '',
    plan,
    perMinute: limits.perMinute,
    perDay: limits.perDay,
    hash: hashKey(key),
    createdAt: new Date(nowMs).toISOString(),
    revokedAt: null,
  };
  await saveKeyFile(dir, [...keys, record]);
  return { key, record };
}

/** Revokes the key `id`; revoking a revoked key keeps its first revocation time. */
export async function revokeKey(dir: string, id: string, nowMs: number): Promise<ApiKey> {
  const keys = await loadKeyFile(dir);
  const index = keys.findIndex((key) => key.id === id);
  if (index === -1) throw new TypeError(`no key has id "${id}"; see animal-store keys list`);
  const revoked = { ...(keys[index] as ApiKey) };
  revoked.revokedAt ??= new Date(nowMs).toISOString();
  keys[index] = revoked;
  await saveKeyFile(dir, keys);
  return revoked;
}

/** The keys of `dir` as a table for people: never the key, never its hash. */
export function formatKeyTable(keys: readonly ApiKey[]): string {
  const rows = [['ID', 'NAME', 'PLAN', 'PER MINUTE', 'PER DAY', 'CREATED', 'REVOKED']];
  for (const key of keys) {
    rows.push([
      key.id,
      key.name,
      key.plan,
      String(key.perMinute),
      String(key.perDay),
      key.createdAt,
      key.revokedAt ?? '-',
    ]);
  }
  const widths = (rows[0] ?? []).map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
