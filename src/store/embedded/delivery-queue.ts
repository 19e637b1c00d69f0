// The pending deliveries of one subscription, as columns: the event's position (ascending), the time
// of the next attempt, the attempts made and a generation that tells a delivery from a later one of the
// same event (a redelivery). About 22 bytes a delivery in the columns and 16 in the order they fall due
// (a heap, due-heap.ts), no object each: a receiver that is down for a day keeps a hundred thousand of
// them in a few megabytes. A subscription has at most one pending delivery of an event, found by binary
// search on the position. A delivery that ends is marked dead and its slot reclaimed in bulk, so that a
// backlog drains in linear time. Claiming what is due costs the deliveries claimed (and the stale heap
// entries passed), never a walk over the backlog, so a queue that fell behind catches up at the speed
// of one that did not. Leases (deliveries a worker holds) are few, so they live in a Map beside the
// columns; they are never written to the journal: a process that dies lets go of its leases with it.
import { DueHeap } from './due-heap.js';
import { withRoom } from './typed-columns.js';

/** The generation of a dead slot; live deliveries have generations from 1. */
const DEAD = 0;
/** Dead slots tolerated before the columns are compacted (and at least as many as live ones). */
const COMPACT_MIN_DEAD = 64;
/** Attempts are counted up to this (the column is 16 bits; no schedule comes near it). */
const MAX_ATTEMPTS = 0xffff;

/** One pending delivery, as the snapshot writes it. */
export interface PendingDelivery {
  eventSeq: number;
  attemptsMade: number;
  nextAttemptAtMs: number;
}

/** The pending deliveries of one subscription. */
export class DeliveryQueue {
  #events = new Float64Array(4);
  #nextAt = new Float64Array(4);
  #attempts = new Uint16Array(4);
  #generations = new Uint32Array(4);
  #length = 0;
  #live = 0;
  /** Event position → the end of the lease on its delivery (ms): claimed, not yet due again. */
  readonly #leases = new Map<number, number>();
  /** (next attempt, event position) of every unleased delivery, and stale entries of changed ones. */
  readonly #due = new DueHeap();

  /** Pending deliveries. */
  get size(): number {
    return this.#live;
  }

  /** The slot of the pending delivery of `eventSeq`, or -1. */
  find(eventSeq: number): number {
    const slot = this.#slotFrom(eventSeq);
    return slot < this.#length && this.#events[slot] === eventSeq && this.#generations[slot] !== DEAD ? slot : -1;
  }

  /** The slot of delivery `generation` of `eventSeq` while it is pending, or -1. */
  findGeneration(eventSeq: number, generation: number): number {
    const slot = this.find(eventSeq);
    return slot !== -1 && this.#generations[slot] === generation ? slot : -1;
  }

  /** Adds a delivery of `eventSeq`, replacing a pending one of the same event (whose lease ends with it). */
  add(eventSeq: number, nextAttemptAtMs: number, attemptsMade: number, generation: number): void {
    // A new event's delivery, the usual case (ten a create with ten subscriptions), is appended: the
    // search answers at once and the columns grow only when full.
    const slot = this.#slotFrom(eventSeq);
    if (slot < this.#length && this.#events[slot] === eventSeq) {
      if (this.#generations[slot] === DEAD) this.#live++;
      else this.#leases.delete(eventSeq);
    } else {
      this.#insertAt(slot, eventSeq);
      this.#live++;
    }
    this.#nextAt[slot] = nextAttemptAtMs;
    this.#attempts[slot] = Math.min(attemptsMade, MAX_ATTEMPTS);
    this.#generations[slot] = generation;
    this.#pushDue(nextAttemptAtMs, eventSeq);
  }

  eventSeqAt(slot: number): number {
    return this.#events[slot] as number;
  }

  attemptsAt(slot: number): number {
    return this.#attempts[slot] as number;
  }

  generationAt(slot: number): number {
    return this.#generations[slot] as number;
  }

  /** After an attempt that failed: one attempt more, the next at `nextAttemptAtMs`, the lease ended. */
  reschedule(slot: number, nextAttemptAtMs: number): void {
    const eventSeq = this.#events[slot] as number;
    this.#leases.delete(eventSeq);
    this.#nextAt[slot] = nextAttemptAtMs;
    this.#attempts[slot] = Math.min((this.#attempts[slot] as number) + 1, MAX_ATTEMPTS);
    this.#pushDue(nextAttemptAtMs, eventSeq);
  }

  /** Ends the delivery in `slot`. */
  remove(slot: number): void {
    this.#kill(slot);
    this.#compactIfWorthIt();
  }

  /** Ends every delivery of an event before `eventSeq` (forgotten events); how many. */
  dropBefore(eventSeq: number): number {
    const before = this.#live;
    const end = this.#slotFrom(eventSeq);
    for (let slot = 0; slot < end; slot++) this.#kill(slot);
    this.#compactIfWorthIt();
    return before - this.#live;
  }

  /** Ends every delivery (the subscription was disabled or deleted); how many. */
  clear(): number {
    const dropped = this.#live;
    this.#length = 0;
    this.#live = 0;
    this.#leases.clear();
    this.#due.clear();
    return dropped;
  }

  /** The earliest time a delivery falls due or its lease ends; undefined when none is pending. */
  dueMs(): number | undefined {
    this.#dropStaleDue();
    let earliest = this.#due.size > 0 ? this.#due.topTime : Number.POSITIVE_INFINITY;
    for (const untilMs of this.#leases.values()) if (untilMs < earliest) earliest = untilMs;
    return earliest === Number.POSITIVE_INFINITY ? undefined : earliest;
  }

  /**
   * Leases until `leaseUntilMs`, and returns the slots of, up to `max` deliveries due at `nowMs`: those
   * whose lease ended without an outcome first, then the earliest due, oldest event first. The slots
   * are valid until the queue next changes.
   */
  claim(nowMs: number, max: number, leaseUntilMs: number): number[] {
    const slots: number[] = [];
    if (max <= 0) return slots;
    for (const [eventSeq, untilMs] of this.#leases) {
      if (slots.length >= max) return slots;
      if (untilMs > nowMs) continue;
      slots.push(this.#slotFrom(eventSeq));
      this.#leases.set(eventSeq, leaseUntilMs);
    }
    while (slots.length < max) {
      this.#dropStaleDue();
      if (this.#due.size === 0 || this.#due.topTime > nowMs) break;
      const eventSeq = this.#due.topSeq;
      this.#due.pop();
      slots.push(this.#slotFrom(eventSeq));
      this.#leases.set(eventSeq, leaseUntilMs);
    }
    return slots;
  }

  /** The position of the oldest event pending, or undefined. */
  oldestEventSeq(): number | undefined {
    for (let slot = 0; slot < this.#length; slot++) if (this.#generations[slot] !== DEAD) return this.#events[slot];
    return undefined;
  }

  /** Every pending delivery, oldest event first. */
  *values(): Generator<PendingDelivery> {
    for (let slot = 0; slot < this.#length; slot++) {
      if (this.#generations[slot] === DEAD) continue;
      yield {
        eventSeq: this.#events[slot] as number,
        attemptsMade: this.#attempts[slot] as number,
        nextAttemptAtMs: this.#nextAt[slot] as number,
      };
    }
  }

  /**
   * The pending deliveries as they are now, for a compaction's snapshot to read across turns: the
   * columns copied, without leases or due order (the copy is only read, through `values`).
   */
  copy(): DeliveryQueue {
    const copy = new DeliveryQueue();
    copy.#events = this.#events.slice(0, this.#length);
    copy.#nextAt = this.#nextAt.slice(0, this.#length);
    copy.#attempts = this.#attempts.slice(0, this.#length);
    copy.#generations = this.#generations.slice(0, this.#length);
    copy.#length = this.#length;
    copy.#live = this.#live;
    return copy;
  }

  #pushDue(nextAttemptAtMs: number, eventSeq: number): void {
    this.#due.push(nextAttemptAtMs, eventSeq);
    // Entries of ended or rescheduled deliveries wait in the heap until they surface; rebuild it
    // before they outnumber the live ones, so that its size stays in proportion to the queue.
    if (this.#due.size > this.#live + (this.#live >> 1) + COMPACT_MIN_DEAD) this.#rebuildDue();
  }

  /** Whether the heap's top entry no longer stands for an unleased delivery due at its time. */
  #topIsStale(): boolean {
    const eventSeq = this.#due.topSeq;
    const slot = this.find(eventSeq);
    return slot === -1 || this.#nextAt[slot] !== this.#due.topTime || this.#leases.has(eventSeq);
  }

  #dropStaleDue(): void {
    while (this.#due.size > 0 && this.#topIsStale()) this.#due.pop();
  }

  #rebuildDue(): void {
    this.#due.clear();
    for (let slot = 0; slot < this.#length; slot++) {
      const eventSeq = this.#events[slot] as number;
      if (this.#generations[slot] !== DEAD && !this.#leases.has(eventSeq))
        this.#due.push(this.#nextAt[slot] as number, eventSeq);
    }
  }

  /** The first slot whose event is at or after `eventSeq`. */
  #slotFrom(eventSeq: number): number {
    const events = this.#events;
    if (this.#length === 0 || (events[this.#length - 1] as number) < eventSeq) return this.#length;
    let low = 0;
    let high = this.#length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((events[middle] as number) < eventSeq) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Opens a slot for `eventSeq` at `slot`, moving the later ones up (an append in the usual case). */
  #insertAt(slot: number, eventSeq: number): void {
    const length = this.#length + 1;
    if (length > this.#events.length) {
      this.#events = withRoom(this.#events, length);
      this.#nextAt = withRoom(this.#nextAt, length);
      this.#attempts = withRoom(this.#attempts, length);
      this.#generations = withRoom(this.#generations, length);
    }
    if (slot < this.#length) {
      this.#events.copyWithin(slot + 1, slot, this.#length);
      this.#nextAt.copyWithin(slot + 1, slot, this.#length);
      this.#attempts.copyWithin(slot + 1, slot, this.#length);
      this.#generations.copyWithin(slot + 1, slot, this.#length);
    }
    this.#events[slot] = eventSeq;
    this.#length = length;
  }

  #kill(slot: number): void {
    if (this.#generations[slot] === DEAD) return;
    this.#leases.delete(this.#events[slot] as number);
    this.#generations[slot] = DEAD;
    this.#live--;
  }

  #compactIfWorthIt(): void {
    const dead = this.#length - this.#live;
    if (dead >= COMPACT_MIN_DEAD && dead >= this.#live) this.#compact();
  }

  /** Moves the live slots down over the dead ones, keeping their order. */
  #compact(): void {
    let to = 0;
    for (let from = 0; from < this.#length; from++) {
      if (this.#generations[from] === DEAD) continue;
      if (to !== from) {
        this.#events[to] = this.#events[from] as number;
        this.#nextAt[to] = this.#nextAt[from] as number;
        this.#attempts[to] = this.#attempts[from] as number;
        this.#generations[to] = this.#generations[from] as number;
      }
      to++;
    }
    this.#length = to;
  }
}
