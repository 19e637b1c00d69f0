// The delivery worker alone, over an in-memory store and a sender the test answers for: the retry
// schedule and its jitter, Retry-After, giving up, 410, disabling after a period of failures, a revoked
// key, the cap on attempts in flight to one subscription, and a stop that drains within its bound.
// Time is a ManualClock that the test moves; the worker is woken with poke() instead of its timer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { openEmbeddedStore } from '../../src/store/embedded/open-embedded-store.js';
import type { Store } from '../../src/store/store.js';
import type { WebhookStore } from '../../src/store/webhook-store.js';
import type { ApiLoad } from '../../src/webhooks/delivery-pacer.js';
import type { DeliveryRequest, DeliveryResult } from '../../src/webhooks/delivery-transport.js';
import { type DeliveryObserver, DeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from '../../src/webhooks/settings.js';
import { newWebhookSecret } from '../../src/webhooks/signature.js';

const START_MS = Date.UTC(2026, 10, 26, 9);
const OWNER = 'key_owner';

/** A sender whose every answer the test gives: each call waits until the test answers it. */
class ScriptedSender {
  readonly calls: Array<{ request: DeliveryRequest; answer(result: Partial<DeliveryResult>): void }> = [];
  #waiters: Array<() => void> = [];

  send(request: DeliveryRequest): Promise<DeliveryResult> {
    return new Promise((resolve) => {
      this.calls.push({
        request,
        answer: (result) => resolve({ status: 200, error: null, durationMs: 10, responseText: null, ...result }),
      });
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  /** Answers every call made so far with a 200 (answering one twice changes nothing). */
  answerAll(): void {
    for (const call of this.calls) call.answer({ status: 200 });
  }

  /** Resolves once `count` calls have been made in all. */
  async until(count: number): Promise<void> {
    while (this.calls.length < count) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }
}

interface Rig {
  store: Store;
  clock: ManualClock;
  sender: ScriptedSender;
  worker: DeliveryWorker;
  disabled: string[];
  active: Set<string>;
  subscribe(events?: string[], url?: string): Promise<string>;
  createPet(): Promise<void>;
  /** Another worker over the same store, sender and clock (`store` in its place), stopped by `close`. */
  workerWith(parts: { store?: WebhookStore; settings: Partial<WebhookSettings>; apiLoad?: ApiLoad }): DeliveryWorker;
  /** Waits until the store has recorded `count` attempts for `id` (the worker records after each answer). */
  attempts(id: string, count: number): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

/** `webhooks` with the methods of `replaced` in place of its own (the rest its own, bound to it). */
function withMethods(webhooks: WebhookStore, replaced: Partial<WebhookStore>): WebhookStore {
  return new Proxy(webhooks, {
    get(target, name) {
      const own: unknown = Reflect.get(replaced, name);
      if (own !== undefined) return own;
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Waits long enough for the worker to start whatever it would start now. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 30));

/**
 * An API with 40 requests in flight on a saturated event loop (unless `busiest` says otherwise) that
 * answers `answersPerLook` requests between two looks of the worker.
 */
function saturatedApi(answersPerLook: number, busiest: () => number = () => 40): ApiLoad {
  let answered = 0;
  return { busiest, answered: () => (answered += answersPerLook), loopUtilization: () => 1 };
}

async function rig(settings: Partial<WebhookSettings> = {}): Promise<Rig> {
  const clock = new ManualClock(START_MS);
  const store = await openEmbeddedStore({
    dataDir: undefined,
    clock,
    durability: 'never',
    fsyncIntervalMs: 1000,
    compactMinRecords: 10_000,
    warn: () => {},
  });
  const sender = new ScriptedSender();
  const disabled: string[] = [];
  const active = new Set([OWNER]);
  const observer: DeliveryObserver = { attempted: () => {}, disabled: (_id, reason) => disabled.push(reason) };
  const worker = new DeliveryWorker({
    store: store.webhooks,
    sender,
    clock,
    settings: { ...DEFAULT_WEBHOOK_SETTINGS, retryWaitsMs: [1000, 60_000], ...settings },
    isKeyActive: (id) => active.has(id),
    // The middle of the jitter: every wait is exactly the scheduled one.
    random: () => 0.5,
    observer,
  });
  let subscriptions = 0;
  const others: DeliveryWorker[] = [];
  return {
    store,
    clock,
    sender,
    worker,
    disabled,
    active,
    async subscribe(events = ['pet.created'], url = 'https://hooks.example.com/in') {
      const added = await store.webhooks.addSubscription(
        {
          id: `wh_test${++subscriptions}`,
          ownerKeyId: OWNER,
          url,
          events: events as never,
          description: null,
          status: 'enabled',
          disabledReason: null,
          createdAt: new Date(clock.now()).toISOString(),
          secrets: [{ secret: newWebhookSecret(), expiresAtMs: null }],
          failingSinceMs: null,
        },
        20,
      );
      return (added as { id: string }).id;
    },
    async createPet() {
      await store.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, clock.now());
    },
    workerWith(parts) {
      const other = new DeliveryWorker({
        store: parts.store ?? store.webhooks,
        sender,
        clock,
        settings: { ...DEFAULT_WEBHOOK_SETTINGS, ...parts.settings },
        isKeyActive: () => true,
        ...(parts.apiLoad !== undefined && { apiLoad: parts.apiLoad }),
      });
      others.push(other);
      return other;
    },
    async attempts(id, count) {
      for (;;) {
        const page = store.webhooks.pageAttempts(id, undefined, 100);
        if (page.items.length >= count)
          return page.items.map((item) => JSON.parse(item.json) as Record<string, unknown>);
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    async close() {
      await worker.stop(0);
      for (const other of others) await other.stop(0);
      await store.close();
    },
  };
}

test('a failed attempt is retried after the scheduled wait, with the same webhook-id, until it succeeds', async () => {
  const { sender, worker, clock, subscribe, createPet, attempts, close } = await rig();
  try {
    const id = await subscribe();
    await createPet();
    worker.start();
    await sender.until(1);
    sender.calls[0]?.answer({ status: 500, responseText: 'down' });
    const [first] = await attempts(id, 1);
    // Ended 10 ms after it started; the first wait is 1000 ms (random 0.5: no jitter).
    assert.equal(first?.nextAttemptAt, new Date(START_MS + 10 + 1000).toISOString());
    assert.equal(first?.error, 'the receiver answered 500');
    worker.poke();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(sender.calls.length, 1, 'not before its time');
    clock.advance(1010);
    worker.poke();
    await sender.until(2);
    assert.equal(sender.calls[1]?.request.headers['webhook-id'], sender.calls[0]?.request.headers['webhook-id']);
    sender.calls[1]?.answer({ status: 204 });
    const [newest] = await attempts(id, 2);
    assert.equal(newest?.status, 204);
    assert.equal(newest?.nextAttemptAt, null);
    assert.equal(newest?.error, null);
  } finally {
    await close();
  }
});

test("a 429's Retry-After stretches the wait, to at most twice the scheduled one", async () => {
  const { sender, worker, subscribe, createPet, attempts, close } = await rig({ retryWaitsMs: [1000, 1000] });
  try {
    const id = await subscribe();
    await createPet();
    worker.start();
    await sender.until(1);
    sender.calls[0]?.answer({ status: 429, retryAfter: '60' });
    const [first] = await attempts(id, 1);
    assert.equal(first?.nextAttemptAt, new Date(START_MS + 10 + 2000).toISOString());
  } finally {
    await close();
  }
});

test('after the last retry the attempt says nextAttemptAt null and nothing more is tried', async () => {
  const { store, sender, worker, clock, subscribe, createPet, attempts, close } = await rig({ retryWaitsMs: [100] });
  try {
    const id = await subscribe();
    await createPet();
    worker.start();
    await sender.until(1);
    sender.calls[0]?.answer({ status: 503 });
    await attempts(id, 1);
    clock.advance(200);
    worker.poke();
    await sender.until(2);
    sender.calls[1]?.answer({ status: 503 });
    const [last] = await attempts(id, 2);
    assert.equal(last?.nextAttemptAt, null);
    clock.advance(86_400_000);
    worker.poke();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(sender.calls.length, 2);
    assert.equal((await store.webhooks.stats()).pending, 0);
  } finally {
    await close();
  }
});

test('a 410 disables the subscription, with the reason, and drops what was pending for it', async () => {
  const { store, sender, worker, disabled, subscribe, createPet, attempts, close } = await rig();
  try {
    const id = await subscribe();
    await createPet();
    await createPet();
    worker.start();
    await sender.until(1);
    sender.calls[0]?.answer({ status: 410 });
    await attempts(id, 1);
    const subscription = await store.webhooks.getSubscription(id);
    assert.equal(subscription?.status, 'disabled');
    assert.match(subscription?.disabledReason ?? '', /410/);
    assert.deepEqual(disabled.length, 1);
    // The second pet's delivery may have started before the 410 was recorded; nothing starts after it.
    const sent = sender.calls.length;
    for (const call of sender.calls.slice(1)) call.answer({ status: 410 });
    await createPet();
    worker.poke();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(sender.calls.length, sent);
    assert.equal((await store.webhooks.stats()).pending, 0);
  } finally {
    await close();
  }
});

test('a subscription failing with no success for the disable period is disabled', async () => {
  const { store, sender, worker, clock, subscribe, createPet, attempts, close } = await rig({
    retryWaitsMs: [60_000, 60_000, 60_000],
    disableAfterMs: 100_000,
  });
  try {
    const id = await subscribe();
    await createPet();
    worker.start();
    for (let attempt = 1; attempt <= 3; attempt++) {
      await sender.until(attempt);
      sender.calls[attempt - 1]?.answer({ status: 500 });
      await attempts(id, attempt);
      if ((await store.webhooks.getSubscription(id))?.status === 'disabled') break;
      clock.advance(60_010);
      worker.poke();
    }
    const subscription = await store.webhooks.getSubscription(id);
    assert.equal(subscription?.status, 'disabled');
    assert.match(subscription?.disabledReason ?? '', /no delivery has succeeded since 2026-11-26T09:00:00.000Z/);
    assert.equal(sender.calls.length, 3);
  } finally {
    await close();
  }
});

test("a revoked key's subscriptions receive nothing more", async () => {
  const { store, sender, worker, active, subscribe, createPet, close } = await rig();
  try {
    await subscribe();
    active.delete(OWNER);
    await createPet();
    worker.start();
    for (let turn = 0; turn < 5 && (await store.webhooks.stats()).pending > 0; turn++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(sender.calls.length, 0);
    assert.equal((await store.webhooks.stats()).pending, 0);
  } finally {
    await close();
  }
});

test('at most maxInFlightPerSubscription attempts go to one subscription at once; another is not held up', async () => {
  const { sender, worker, subscribe, createPet, close } = await rig({ maxInFlightPerSubscription: 2 });
  try {
    await subscribe(['pet.created'], 'https://slow.example.com/in');
    for (let index = 0; index < 4; index++) await createPet();
    await subscribe(['pet.created'], 'https://quick.example.com/in');
    await createPet();
    worker.start();
    await sender.until(3);
    // Settled: nothing more starts until an attempt ends.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const hosts = sender.calls.map((call) => new URL(call.request.url).hostname).sort();
    assert.deepEqual(hosts, ['quick.example.com', 'slow.example.com', 'slow.example.com']);
    sender.calls[0]?.answer({ status: 200 });
    await sender.until(4);
    sender.answerAll();
  } finally {
    await close();
  }
});

test('a receiver that hangs keeps only its own slots: one that frees up goes to a subscription holding none', async () => {
  const { store, clock, sender, subscribe, createPet, close } = await rig();
  const worker = new DeliveryWorker({
    store: store.webhooks,
    sender,
    clock,
    settings: { ...DEFAULT_WEBHOOK_SETTINGS, retryWaitsMs: [1000] },
    isKeyActive: () => true,
    random: () => 0.5,
    maxInFlight: 4,
  });
  try {
    await subscribe(['pet.created'], 'https://hanging.example.com/in');
    for (let index = 0; index < 6; index++) await createPet();
    worker.start();
    await sender.until(4);
    await subscribe(['pet.created'], 'https://quick.example.com/in');
    await createPet();
    // Every slot is held by the hanging receiver; one of its attempts ends (timed out).
    sender.calls[0]?.answer({ status: null, error: 'timed out after 10000 ms' });
    await sender.until(5);
    assert.equal(new URL(sender.calls[4]?.request.url ?? '').hostname, 'quick.example.com');
    sender.answerAll();
  } finally {
    await worker.stop(0);
    await close();
  }
});

test('a slot that frees up goes to the subscription holding fewest, before an older backlog of another', async () => {
  const { store, clock, sender, subscribe, createPet, close } = await rig();
  const worker = new DeliveryWorker({
    store: store.webhooks,
    sender,
    clock,
    settings: DEFAULT_WEBHOOK_SETTINGS,
    isKeyActive: () => true,
    random: () => 0.5,
    maxInFlight: 4,
  });
  try {
    // A healthy receiver with a backlog older than the other's one event: not failing, so not capped.
    await subscribe(['pet.created'], 'https://busy.example.com/in');
    for (let index = 0; index < 6; index++) await createPet();
    worker.start();
    await sender.until(4);
    await subscribe(['pet.created'], 'https://other.example.com/in');
    await createPet();
    sender.calls[0]?.answer({ status: 200 });
    await sender.until(5);
    assert.equal(new URL(sender.calls[4]?.request.url ?? '').hostname, 'other.example.com');
    sender.answerAll();
  } finally {
    await worker.stop(0);
    await close();
  }
});

test('a stop waits for the attempts in flight, but no longer than its bound', async () => {
  const { sender, worker, subscribe, createPet, close } = await rig();
  try {
    await subscribe();
    await createPet();
    worker.start();
    await sender.until(1);
    const started = performance.now();
    await worker.stop(50);
    const waitedMs = performance.now() - started;
    assert.ok(waitedMs >= 40, `stopped after ${waitedMs} ms, before the attempt or the bound`);
    sender.calls[0]?.answer({ status: 200 });
  } finally {
    await close();
  }
});

test(
  "the next attempt does not wait for the last one's outcome to be written, but none starts while a 410 is",
  { timeout: 120_000 },
  async () => {
    const { store, sender, subscribe, createPet, workerWith, close } = await rig();
    // Outcomes are written only when the test opens the gate.
    let openGate: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const writes: number[] = [];
    const worker = workerWith({
      store: withMethods(store.webhooks, {
        finishAttempts: async (results) => {
          writes.push(results.length);
          await gate;
          await store.webhooks.finishAttempts(results);
        },
      }),
      settings: { maxInFlightPerSubscription: 1 },
    });
    try {
      const id = await subscribe();
      for (let index = 0; index < 3; index++) await createPet();
      worker.start();
      await sender.until(1);
      sender.calls[0]?.answer({ status: 200 });
      await sender.until(2);
      assert.deepEqual(writes, [1], 'the second attempt started while the first outcome was being written');
      sender.calls[1]?.answer({ status: 410 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      worker.poke();
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(sender.calls.length, 2, 'no attempt starts while the 410 waits to be written');
      openGate();
      for (let turn = 0; turn < 100 && (await store.webhooks.getSubscription(id))?.status !== 'disabled'; turn++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal((await store.webhooks.getSubscription(id))?.status, 'disabled');
      assert.deepEqual(writes, [1, 1], 'the 410 was written after the first batch');
      worker.poke();
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(sender.calls.length, 2);
    } finally {
      await close();
    }
  },
);

test('while the API is busy and the process saturated, deliveries keep to a few sending slots, and take them all again once it is not', async () => {
  const { clock, sender, subscribe, createPet, workerWith, close } = await rig();
  let busiest = 40;
  const worker = workerWith({
    settings: { maxInFlightPerSubscription: 100 },
    apiLoad: saturatedApi(1000, () => busiest),
  });
  try {
    await subscribe();
    for (let index = 0; index < 60; index++) await createPet();
    worker.start();
    await sender.until(16);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(sender.calls.length, 16, 'sixteen sending while the API had 40 requests in flight');
    busiest = 3;
    worker.poke();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(sender.calls.length, 16, 'the load is looked at again only after a while');
    clock.advance(100);
    worker.poke();
    await sender.until(60);
    assert.equal(sender.calls.length, 60);
    sender.answerAll();
  } finally {
    await close();
  }
});

test('while the API is busy and the process saturated, attempts start at a hundredth of its answers (sixteen a look at least)', async () => {
  const { clock, sender, subscribe, createPet, workerWith, close } = await rig();
  let answered = 100;
  let utilization = 1;
  const worker = workerWith({
    settings: { maxInFlightPerSubscription: 100 },
    apiLoad: { busiest: () => 40, answered: () => answered, loopUtilization: () => utilization },
  });
  try {
    await subscribe();
    for (let index = 0; index < 80; index++) await createPet();
    worker.start();
    await sender.until(16);
    sender.answerAll();
    await settle();
    assert.equal(sender.calls.length, 16, 'sixteen started: the slots they freed wait for the next look');
    answered = 3100;
    clock.advance(100);
    worker.poke();
    await sender.until(32);
    sender.answerAll();
    await sender.until(46);
    sender.answerAll();
    await settle();
    assert.equal(sender.calls.length, 46, 'thirty more for 3,000 answers, sixteen sending at a time');
    utilization = 0.5;
    clock.advance(100);
    worker.poke();
    await sender.until(80);
    sender.answerAll();
    assert.equal(sender.calls.length, 80, 'every one once the process has time to spare, with 40 requests in flight');
  } finally {
    await close();
  }
});

test('an API that was busy stays busy while the loop is a little less busy (its own share, with fsync waits), and only then', async () => {
  const { clock, sender, subscribe, createPet, workerWith, close } = await rig();
  let answered = 0;
  let utilization = 1;
  const worker = workerWith({
    settings: { maxInFlightPerSubscription: 100 },
    apiLoad: { busiest: () => 40, answered: () => (answered += 100), loopUtilization: () => utilization },
  });
  const nextLook = async (): Promise<void> => {
    clock.advance(100);
    worker.poke();
    await settle();
    sender.answerAll();
    await settle();
  };
  try {
    await subscribe();
    for (let index = 0; index < 100; index++) await createPet();
    worker.start();
    await sender.until(16);
    sender.answerAll();
    await settle();
    assert.equal(sender.calls.length, 16, 'a saturated loop: sixteen a look');
    utilization = 0.8;
    await nextLook();
    assert.equal(sender.calls.length, 32, 'at 0.8 after a busy look: still sixteen a look');
    utilization = 0.7;
    await nextLook();
    await sender.until(100);
    assert.equal(sender.calls.length, 100, 'at 0.7: every one');
    sender.answerAll();
    for (let index = 0; index < 60; index++) await createPet();
    utilization = 0.8;
    await nextLook();
    await sender.until(160);
    assert.equal(sender.calls.length, 160, 'at 0.8 after a look with time to spare: every one');
    sender.answerAll();
  } finally {
    await close();
  }
});

test('while out of starts until the next look, new deliveries wait for it, and the look, on the worker’s own timer, starts more', async () => {
  const { clock, sender, subscribe, createPet, workerWith, close } = await rig();
  const worker = workerWith({ settings: { maxInFlightPerSubscription: 100 }, apiLoad: saturatedApi(100) });
  try {
    await subscribe();
    for (let index = 0; index < 40; index++) await createPet();
    worker.start();
    await sender.until(16);
    sender.answerAll();
    for (let index = 0; index < 5; index++) {
      await createPet();
      worker.poke();
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(sender.calls.length, 16, 'none started while the budget of this look is spent');
    clock.advance(100);
    // The worker's timer does not hold the process open; this does, until the timer has fired.
    const keepOpen = setTimeout(() => {}, 5_000);
    await sender.until(32);
    clearTimeout(keepOpen);
    assert.equal(sender.calls.length, 32, 'sixteen more at the next look, its timer set by the worker');
    sender.answerAll();
  } finally {
    await close();
  }
});

test('a process saturated while its API answers few requests (a start-up, a compaction, its own deliveries) delivers at full speed', async () => {
  const { sender, subscribe, createPet, workerWith, close } = await rig();
  // 50 answers a look, 500 a second: the rate at which 10 subscriptions need 5,000 deliveries a second.
  const worker = workerWith({ settings: { maxInFlightPerSubscription: 100 }, apiLoad: saturatedApi(50) });
  try {
    await subscribe();
    for (let index = 0; index < 60; index++) await createPet();
    worker.start();
    await sender.until(60);
    assert.equal(sender.calls.length, 60, 'every one at once, with 40 requests in flight and the loop saturated');
    sender.answerAll();
  } finally {
    await close();
  }
});

test('a subscription at its limit with more deliveries due is not asked for again and again while its attempts hang', async () => {
  const { store, sender, subscribe, createPet, workerWith, close } = await rig();
  let claims = 0;
  const worker = workerWith({
    store: withMethods(store.webhooks, {
      claimDue: (...args) => {
        claims++;
        return store.webhooks.claimDue(...args);
      },
    }),
    settings: { maxInFlightPerSubscription: 1 },
  });
  try {
    await subscribe();
    for (let index = 0; index < 3; index++) await createPet();
    worker.start();
    await sender.until(1);
    const before = claims;
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(claims - before <= 2, `claimed ${claims - before} times in 200 ms while the one slot was taken`);
    sender.calls[0]?.answer({ status: 200 });
    await sender.until(2);
    assert.equal(sender.calls.length, 2, 'the next one starts as soon as the slot is free');
    sender.calls[1]?.answer({ status: 200 });
    await sender.until(3);
    sender.calls[2]?.answer({ status: 200 });
  } finally {
    await close();
  }
});
