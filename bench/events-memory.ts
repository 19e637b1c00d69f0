// The embedded store's memory for events and webhooks, against the targets of docs/events.md: at most
// 200 bytes per retained event at a million events, at most 64 bytes per pending delivery at a hundred
// thousand pending to a receiver that is down. Heap after two full collections, before and after:
//   events (own data)     the event log alone, each event's data a string of its own (an order's
//                         events, or a pet changed since): the worst case;
//   events (with pets)    a million pet records with their pet.created events replayed into the store's
//                         state, less the same pets without events: the data is the pet's own string;
//   pending delivery      a hundred thousand events recorded for an enabled subscription whose receiver
//                         is down (each pending, attempted once, waiting for its retry), less the same
//                         events recorded while it was disabled (none pending);
//   kept attempt          the attempts kept for listing (1,000 a subscription), each a delivery that
//                         succeeded at once, as the journal records them now (their facts) and as
//                         earlier releases did (their JSON), less the same deliveries dropped unattempted.
// Run: node --expose-gc --import tsx bench/events-memory.ts [--events N] [--pending N] [--attempts N]
import { parseArgs } from 'node:util';
import { ManualClock } from '../src/core/clock.js';
import { type StoredPet, storedPet } from '../src/pets/stored-pet.js';
import { EventLog } from '../src/store/embedded/event-log.js';
import { EmbeddedState, NO_LOG } from '../src/store/embedded/state.js';
import type { Subscription } from '../src/store/webhook-store.js';

const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) throw new Error('run with node --expose-gc --import tsx bench/events-memory.ts');

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    pending: { type: 'string', default: '100000' },
    attempts: { type: 'string', default: '100000' },
  },
});
const EVENTS = Number(values.events);
const PENDING = Number(values.pending);
/** Kept attempts: a thousand for each of ATTEMPTS / 1000 subscriptions. */
const ATTEMPTS = Number(values.attempts);
const START_MS = Date.UTC(2027, 0, 1);
const NAMES = ['Rex', 'Bella', 'Milo', 'Luna', 'Max', 'Coco', 'Oscar', 'Nala', 'Simba', 'Kiwi', 'Pepper', 'Biscuit'];

/** Memory in use after two full collections: the heap, and the typed arrays' buffers (held outside it). */
function heapBytes(): number {
  collect?.();
  collect?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/** A pet of generated data, as bench/seed.ts makes them (about 70 bytes of JSON), its JSON one flat string as replay reads it. */
function petOf(id: number, status: 'available' | 'pending' = 'available'): StoredPet {
  const pet = storedPet(id, `${NAMES[id % NAMES.length]} ${id}`, 1 + (id % 20), status);
  return { ...pet, json: Buffer.from(pet.json).toString() };
}

/** Memory that what `build` returns holds, measured while it is reachable; released afterwards. */
function measure(build: () => unknown): number {
  const before = heapBytes();
  kept.push(build());
  const bytes = heapBytes() - before;
  kept.length = 0;
  return bytes;
}
const kept: unknown[] = [];

function eventsWithOwnData(count: number): number {
  return (
    measure(() => {
      const log = new EventLog();
      // Each event's data a string of its own, as after its pet changed, built as a commit builds it.
      for (let seq = 1; seq <= count; seq++)
        log.record(seq, 'pet.updated', START_MS + seq, storedPet(seq, `Pet ${seq}`, 1 + (seq % 20), 'pending').json);
      return log;
    }) / count
  );
}

function eventsWithPets(count: number): number {
  const clock = new ManualClock(START_MS);
  const plain = measure(() => {
    const state = new EmbeddedState(NO_LOG, clock);
    for (let id = 1; id <= count; id++) state.apply({ op: 'pet', pet: petOf(id) });
    return state;
  });
  const withEvents = measure(() => {
    const state = new EmbeddedState(NO_LOG, clock);
    for (let id = 1; id <= count; id++) state.apply({ op: 'pet', atMs: START_MS + id, eventSeq: id, pet: petOf(id) });
    return state;
  });
  return (withEvents - plain) / count;
}

/** Events recorded with a subscription to them that is enabled (each pending for it) or disabled (none pending). */
function withSubscription(count: number, status: 'enabled' | 'disabled'): EmbeddedState {
  const state = new EmbeddedState(NO_LOG, new ManualClock(START_MS));
  const subscription: Subscription = {
    seq: 1,
    id: 'wh_down',
    ownerKeyId: 'key_1',
    url: 'https://down.example/hook',
    events: ['pet.created'],
    description: null,
    status,
    disabledReason: status === 'enabled' ? null : 'paused',
    createdAt: new Date(START_MS).toISOString(),
    secrets: [{ secret: 'whsec_x', expiresAtMs: null }],
    failingSinceMs: null,
  };
  state.apply({ op: 'sub', subscription });
  for (let id = 1; id <= count; id++) state.apply({ op: 'pet', atMs: START_MS + id, eventSeq: id, pet: petOf(id) });
  const queue = state.webhooks.subscriptions.get(subscription.id)?.queue;
  if (queue?.size !== (status === 'enabled' ? count : 0)) throw new Error('the deliveries are not as expected');
  // The receiver is down: every delivery was claimed, attempted once, and waits for its retry.
  queue.claim(START_MS + count, count, START_MS + count + 40_000);
  for (let seq = 1; seq <= queue.size; seq++) queue.reschedule(queue.find(seq), START_MS + 5000 + seq);
  return state;
}

function pendingDeliveries(count: number): number {
  return (
    (measure(() => withSubscription(count, 'enabled')) - measure(() => withSubscription(count, 'disabled'))) / count
  );
}

/** A thousand events delivered to each of `count / 1000` subscriptions: each attempted once, or dropped unattempted. */
function withAttempts(count: number, form: 'facts' | 'json' | 'none'): EmbeddedState {
  const state = new EmbeddedState(NO_LOG, new ManualClock(START_MS));
  const subscriptions = Math.max(1, Math.round(count / 1000));
  const events = Math.round(count / subscriptions);
  for (let seq = 1; seq <= subscriptions; seq++) {
    const id = `wh_${String(seq).padStart(26, '0')}`;
    state.apply({
      op: 'sub',
      subscription: {
        seq,
        id,
        ownerKeyId: 'key_1',
        url: `https://in.example/hook/${seq}`,
        events: ['pet.created'],
        description: null,
        status: 'enabled',
        disabledReason: null,
        createdAt: new Date(START_MS).toISOString(),
        secrets: [{ secret: 'whsec_x', expiresAtMs: null }],
        failingSinceMs: null,
      },
    });
  }
  for (let id = 1; id <= events; id++) state.apply({ op: 'pet', atMs: START_MS + id, eventSeq: id, pet: petOf(id) });
  let attemptSeq = 1;
  for (let sub = 1; sub <= subscriptions; sub++) {
    const subscriptionId = `wh_${String(sub).padStart(26, '0')}`;
    for (let eventSeq = 1; eventSeq <= events; eventSeq++) {
      if (form === 'none') {
        state.apply({ op: 'drop', subscriptionId, eventSeq });
        continue;
      }
      const seq = attemptSeq++;
      // As newAttemptId makes them: `att_` and 26 characters, each a string of its own.
      const id = `att_01KAZ3QN0B${String(seq).padStart(16, '0')}`;
      const facts = { id, attemptedAtMs: START_MS + eventSeq, status: 200, error: null, durationMs: 3, response: null };
      const json = JSON.stringify({
        id,
        eventId: `evt_abcdefghij${eventSeq}`,
        type: 'pet.created',
        attemptedAt: new Date(START_MS + eventSeq).toISOString(),
        status: 200,
        error: null,
        durationMs: 3,
        nextAttemptAt: null,
        response: null,
      });
      state.apply({
        op: 'attempt',
        seq,
        subscription: form === 'facts' ? sub : subscriptionId,
        eventSeq,
        attempt: form === 'facts' ? facts : { id, json },
        current: true,
        nextAttemptAtMs: null,
        delivered: true,
        failingSinceMs: null,
      });
    }
  }
  return state;
}

function keptAttempts(count: number, form: 'facts' | 'json'): number {
  return (measure(() => withAttempts(count, form)) - measure(() => withAttempts(count, 'none'))) / count;
}

const ownData = eventsWithOwnData(EVENTS);
const shared = eventsWithPets(EVENTS);
const pending = pendingDeliveries(PENDING);
const attemptFacts = keptAttempts(ATTEMPTS, 'facts');
const attemptJson = keptAttempts(ATTEMPTS, 'json');
const rows = [
  ['retained event, own data', `${EVENTS.toLocaleString('en-US')} events`, ownData, 200],
  ['retained event, with its pet', `${EVENTS.toLocaleString('en-US')} pets`, shared, 200],
  ['pending delivery', `${PENDING.toLocaleString('en-US')} pending`, pending, 64],
  ['kept attempt (facts)', `${ATTEMPTS.toLocaleString('en-US')} kept`, attemptFacts, undefined],
  ['kept attempt (JSON, old records)', `${ATTEMPTS.toLocaleString('en-US')} kept`, attemptJson, undefined],
] as const;
for (const [what, at, bytes, target] of rows)
  console.log(
    `${what.padEnd(32)} ${at.padEnd(18)} ${bytes.toFixed(1).padStart(7)} B   ${target === undefined ? '(information)' : `target ≤ ${target} B`}`,
  );
console.log(JSON.stringify(Object.fromEntries(rows.map(([what, , bytes]) => [what, Math.round(bytes * 10) / 10]))));
