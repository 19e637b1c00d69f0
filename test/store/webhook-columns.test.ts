// The columns the embedded store keeps events and deliveries in: positions with holes and forgotten
// prefixes, out-of-order additions, delivery queues that reclaim ended deliveries in bulk, and the
// bits of delivered events.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeliveredSet } from '../../src/store/embedded/delivered-set.js';
import { DeliveryQueue } from '../../src/store/embedded/delivery-queue.js';
import { EventLog } from '../../src/store/embedded/event-log.js';

test('the event log skips holes, lists by type, and forgets a prefix by time, reclaiming the space', () => {
  const log = new EventLog();
  for (let seq = 1; seq <= 10_000; seq++) {
    const first = log.takeSeqs(1);
    assert.equal(first, seq);
    // Every tenth write "failed": its position stays a hole.
    if (seq % 10 !== 0) log.record(seq, seq % 3 === 0 ? 'pet.updated' : 'pet.created', 1000 + seq, `{"id":${seq}}`);
  }
  assert.equal(log.size, 9000);
  const page = log.page(undefined, 8, 3, 0);
  assert.deepEqual(page.seqs, [9, 11, 12]);
  assert.equal(page.total, 9000);
  assert.deepEqual(log.page('pet.updated', 0, 2, 0).seqs, [3, 6]);
  assert.equal(log.page('pet.updated', 0, 2, 0).total, 3000);
  assert.equal(log.purge(1000 + 6001), 6001);
  assert.equal(log.get(6000), undefined);
  assert.equal(log.get(5999), undefined);
  assert.equal(log.get(6001)?.dataJson, '{"id":6001}');
  assert.equal(log.page(undefined, 0, 1, 0).seqs[0], 6001);
  assert.equal(log.page(undefined, 0, 1, 0).total, 3600);
  assert.equal(log.takeSeqs(1), 10_001, 'positions go on after forgotten ones');
  assert.equal(log.record(5, 'pet.created', 1, '{}'), false, 'a forgotten position takes nothing');
});

test('the event log sorts positions added out of order before it reads them', () => {
  const log = new EventLog();
  for (const seq of [5, 2, 9, 1]) log.record(seq, 'order.created', seq, '{}');
  assert.deepEqual(log.page('order.created', 0, 10, 0).seqs, [1, 2, 5, 9]);
  assert.deepEqual(log.page('order.created', 2, 10, 3).seqs, [5, 9]);
  assert.deepEqual([...log.seqsOf('order.created', 2)], [2, 5, 9]);
});

test('a delivery queue finds deliveries by event, replaces a redelivered one, and reclaims ended ones', () => {
  const queue = new DeliveryQueue();
  for (let seq = 1; seq <= 1000; seq++) queue.add(seq * 2, seq, 0, seq);
  queue.add(7, 5, 0, 5000);
  assert.equal(queue.size, 1001);
  assert.equal(queue.eventSeqAt(queue.find(7)), 7);
  assert.equal(queue.find(9), -1);
  queue.add(8, 99, 0, 6000);
  assert.equal(queue.size, 1001, 'one pending delivery an event');
  assert.equal(queue.findGeneration(8, 4), -1);
  assert.notEqual(queue.findGeneration(8, 6000), -1);
  for (let seq = 1; seq <= 900; seq++) queue.remove(queue.find(seq * 2));
  assert.equal(queue.size, 101);
  assert.deepEqual(
    [...queue.values()].slice(0, 2).map((pending) => pending.eventSeq),
    [7, 1802],
  );
  assert.equal(queue.dropBefore(1900), 50);
  assert.equal(queue.oldestEventSeq(), 1900);
  assert.equal(queue.dueMs(), 950);
  assert.deepEqual(
    queue.claim(950, 10, 10_000).map((slot) => queue.eventSeqAt(slot)),
    [1900],
  );
  assert.equal(queue.dueMs(), 951);
  assert.equal(queue.claim(9_999, 100, 20_000).length, 50, 'a leased delivery is not claimed again');
  assert.equal(queue.dueMs(), 10_000, 'then its lease ends first');
  assert.deepEqual(
    queue.claim(10_000, 100, 30_000).map((slot) => queue.eventSeqAt(slot)),
    [1900],
    'a lease that ended without an outcome is claimed again',
  );
});

/** The rules of DeliveryQueue.claim and dueMs, by walking every delivery: what the queue must agree with. */
class WalkingQueue {
  readonly pending = new Map<number, { nextAt: number; attempts: number }>();
  readonly leases = new Map<number, number>();

  dueMs(): number | undefined {
    let earliest = Number.POSITIVE_INFINITY;
    for (const [seq, { nextAt }] of this.pending) earliest = Math.min(earliest, this.leases.get(seq) ?? nextAt);
    return earliest === Number.POSITIVE_INFINITY ? undefined : earliest;
  }

  claim(nowMs: number, max: number, untilMs: number): number[] {
    const claimed: number[] = [];
    for (const [seq, leaseMs] of this.leases) if (leaseMs <= nowMs && claimed.length < max) claimed.push(seq);
    const due = [...this.pending]
      .filter(([seq, { nextAt }]) => !this.leases.has(seq) && nextAt <= nowMs)
      .sort(([seq, one], [other, two]) => one.nextAt - two.nextAt || seq - other)
      .map(([seq]) => seq);
    claimed.push(...due.slice(0, Math.max(0, max - claimed.length)));
    for (const seq of claimed) this.leases.set(seq, untilMs);
    return claimed;
  }
}

test('a delivery queue claims as a walk over every delivery would, through adds, retries, ends and leases', () => {
  // A small deterministic generator, so a failure can be replayed.
  let state = 12345;
  const random = (below: number): number => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % below;
  };
  const queue = new DeliveryQueue();
  const model = new WalkingQueue();
  let nowMs = 1000;
  let generation = 1;
  for (let step = 0; step < 20_000; step++) {
    const seq = 1 + random(400);
    const action = random(10);
    if (action < 4) {
      const nextAt = nowMs + random(50) - 10;
      queue.add(seq, nextAt, 0, generation++);
      model.pending.set(seq, { nextAt, attempts: 0 });
      model.leases.delete(seq);
    } else if (action < 6 && model.pending.has(seq)) {
      const nextAt = nowMs + random(80);
      queue.reschedule(queue.find(seq), nextAt);
      model.pending.set(seq, { nextAt, attempts: 1 });
      model.leases.delete(seq);
    } else if (action < 7 && model.pending.has(seq)) {
      queue.remove(queue.find(seq));
      model.pending.delete(seq);
      model.leases.delete(seq);
    } else if (action < 9) {
      const max = random(6);
      const untilMs = nowMs + 30 + random(30);
      const claimed = queue.claim(nowMs, max, untilMs).map((slot) => queue.eventSeqAt(slot));
      assert.deepEqual(claimed, model.claim(nowMs, max, untilMs), `claim at step ${step}`);
    } else {
      nowMs += random(20);
    }
    assert.equal(queue.dueMs(), model.dueMs(), `dueMs at step ${step}`);
    assert.equal(queue.size, model.pending.size);
  }
});

test('delivered events are bits from the oldest kept, and forgetting clears the ones before', () => {
  const delivered = new DeliveredSet();
  for (const seq of [13, 14, 15, 40, 3, 100]) delivered.add(seq);
  assert.deepEqual(delivered.ranges(), [
    [3, 3],
    [13, 15],
    [40, 40],
    [100, 100],
  ]);
  delivered.dropBefore(14);
  assert.deepEqual(delivered.ranges(), [
    [14, 15],
    [40, 40],
    [100, 100],
  ]);
  assert.equal(delivered.has(13), false);
  assert.equal(delivered.has(40), true);
});
