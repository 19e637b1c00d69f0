// The events the embedded store retains, by position (seq). An event is its type, its time and the JSON
// of its data, in three columns indexed by position: an array of strings (the data is usually the very
// string the pet or order collection holds, so it costs nothing more), a Float64Array of times and a
// Uint8Array of types, plus one ascending list of positions per type. No object and no Map entry per
// event: about 25 bytes an event beside its data (the `{"id",…}` envelope is joined when it is read).
// Positions are handed out when a change is written and noted when it is applied, so a position whose
// write failed stays a hole, never reused; holes and forgotten events read as nothing.
import { EVENT_TYPES, type DeliveredEventType, type EventType, TEST_EVENT_TYPE } from '../../events/event.js';
import { idGapProblem } from './indexed-collection.js';
import { SeqList } from './seq-list.js';
import { withRoom } from './typed-columns.js';

/** Every type an event can have, by its code in the type column. */
const TYPES: readonly DeliveredEventType[] = [...EVENT_TYPES, TEST_EVENT_TYPE];
const TEST_CODE = TYPES.indexOf(TEST_EVENT_TYPE);
/** The code of a slot that holds no event (a hole, or forgotten). */
const NONE = 255;
/** Forgotten slots kept before they are reclaimed: reclaiming copies the columns, so it waits for many. */
const RECLAIM_MIN_SLOTS = 4096;

/**
 * Has V8 keep `text` as one run of characters. A string built by concatenation (a pet's or an order's
 * JSON) is a tree of its pieces, about 300 bytes for a pet, until something reads it whole; reading it
 * as a number flattens it in place, and the collector then drops the pieces: about 100 bytes
 * (bench/events-memory.ts). The string stays the same value, shared with the pet or order that holds it.
 */
function flatten(text: string): void {
  void Number(text);
}

/** An event as the log holds it. */
export interface LoggedEvent {
  readonly seq: number;
  readonly type: DeliveredEventType;
  readonly atMs: number;
  readonly dataJson: string;
}

/** A page of positions, as `pageEvents` lists them. */
export interface SeqPage {
  seqs: number[];
  more: boolean;
  total: number;
}

/** Retained events by position, with an index per type. */
export class EventLog {
  /** The position of slot 0. */
  #base = 1;
  #data: Array<string | undefined> = [];
  #times = new Float64Array(16);
  #types = new Uint8Array(16).fill(NONE);
  /** Positions below this one are forgotten. */
  #first = 1;
  #next = 1;
  #retained = 0;
  readonly #byType = TYPES.map(() => new SeqList());

  /** Hands out `count` consecutive positions; they are never handed out again, even if never recorded. */
  takeSeqs(count: number): number {
    const first = this.#next;
    this.#next += count;
    return first;
  }

  /** Makes sure positions continue after `seq` (also for records that were torn or never applied). */
  noteSeq(seq: number): void {
    if (seq >= this.#next) this.#next = seq + 1;
  }

  /** The position `takeSeqs` hands out next. */
  get nextSeq(): number {
    return this.#next;
  }

  /** The first position not forgotten. */
  get firstSeq(): number {
    return this.#first;
  }

  /** Events retained, test events included. */
  get size(): number {
    return this.#retained;
  }

  /** Events retained of `type`. */
  countOf(type: DeliveredEventType): number {
    return (this.#byType[TYPES.indexOf(type)] as SeqList).length;
  }

  /** Forgets every position before `seq` at once: a compacted log starts where its retained events start. */
  startAt(seq: number): void {
    if (this.#retained === 0 && seq > this.#first) {
      this.#first = seq;
      this.#base = seq;
      this.#data = [];
      this.#types.fill(NONE);
    }
    this.noteSeq(seq - 1);
  }

  /** Records an event; false (nothing recorded) when its position is forgotten or already holds one. */
  record(seq: number, type: DeliveredEventType, atMs: number, dataJson: string): boolean {
    if (seq >= this.#next) this.#next = seq + 1;
    // Slots start at or before the first retained position, so anything below it is forgotten.
    if (seq < this.#first) return false;
    const slot = seq - this.#base;
    const data = this.#data;
    if (slot >= data.length) {
      const gap = idGapProblem('event position', seq, this.#base + data.length - 1);
      if (gap !== undefined) throw new Error(gap);
      // Positions come in order: the slot is usually the next one; a gap is a hole.
      if (slot >= this.#types.length) this.#grow(slot + 1);
      while (data.length < slot) data.push(undefined);
      data.push(undefined);
    } else if (this.#types[slot] !== NONE) {
      return false;
    }
    const code = TYPES.indexOf(type);
    flatten(dataJson);
    data[slot] = dataJson;
    this.#times[slot] = atMs;
    this.#types[slot] = code;
    (this.#byType[code] as SeqList).add(seq);
    this.#retained++;
    return true;
  }

  /** The event at `seq`, unless there is none or it is forgotten. */
  get(seq: number): LoggedEvent | undefined {
    const slot = seq - this.#base;
    if (!Number.isSafeInteger(seq) || seq < this.#first || slot >= this.#data.length) return undefined;
    const code = this.#types[slot] as number;
    if (code === NONE) return undefined;
    return {
      seq,
      type: TYPES[code] as DeliveredEventType,
      atMs: this.#times[slot] as number,
      dataJson: this.#data[slot] as string,
    };
  }

  /** Whether `seq` holds a retained event other than a test. */
  isListed(seq: number): boolean {
    const slot = seq - this.#base;
    if (seq < this.#first || slot >= this.#data.length) return false;
    const code = this.#types[slot];
    return code !== NONE && code !== TEST_CODE;
  }

  /** The time of the event at `seq` (retained, else NaN). */
  timeOf(seq: number): number {
    const slot = seq - this.#base;
    return seq >= this.#first && slot < this.#data.length && this.#types[slot] !== NONE
      ? (this.#times[slot] as number)
      : NaN;
  }

  /**
   * Up to `limit` positions after `afterSeq` of events of `type` (any but tests when undefined), recorded
   * at or after `sinceMs`. Times follow positions (both follow the order of recording), so where
   * retention starts is a binary search; an event dated before a wall clock stepped back is still
   * checked one by one.
   */
  page(type: EventType | undefined, afterSeq: number, limit: number, sinceMs: number): SeqPage {
    const lists =
      type === undefined ? this.#byType.slice(0, TEST_CODE) : [this.#byType[TYPES.indexOf(type)] as SeqList];
    let total = 0;
    let sinceSeq = Number.POSITIVE_INFINITY;
    for (const list of lists) {
      const since = list.indexWhere((seq) => this.timeOf(seq), sinceMs);
      total += list.length - since;
      if (since < list.length) sinceSeq = Math.min(sinceSeq, list.at(since));
    }
    const seqs: number[] = [];
    if (type !== undefined) {
      const list = lists[0] as SeqList;
      let index = list.indexFrom(Math.max(afterSeq + 1, sinceSeq));
      for (; index < list.length && seqs.length < limit; index++) {
        const seq = list.at(index);
        if (this.timeOf(seq) >= sinceMs) seqs.push(seq);
      }
      return { seqs, more: index < list.length, total };
    }
    const end = this.#base + this.#data.length;
    let seq = Math.max(afterSeq + 1, sinceSeq, this.#first);
    for (; seq < end && seqs.length < limit; seq++) {
      if (this.isListed(seq) && this.timeOf(seq) >= sinceMs) seqs.push(seq);
    }
    while (seq < end && !(this.isListed(seq) && this.timeOf(seq) >= sinceMs)) seq++;
    return { seqs, more: seq < end, total };
  }

  /** The positions of the events of `type` recorded at or after `sinceMs`, ascending. */
  *seqsOf(type: EventType, sinceMs: number): Generator<number> {
    const list = this.#byType[TYPES.indexOf(type)] as SeqList;
    for (let index = list.indexWhere((seq) => this.timeOf(seq), sinceMs); index < list.length; index++) {
      const seq = list.at(index);
      if (this.timeOf(seq) >= sinceMs) yield seq;
    }
  }

  /**
   * Forgets the events recorded before `beforeMs`, from the oldest on up to the first recorded at or
   * after it (a later one dated earlier, after the wall clock stepped back, waits for a later purge);
   * returns the first position kept.
   */
  purge(beforeMs: number): number {
    const end = this.#base + this.#data.length;
    let seq = this.#first;
    for (; seq < end; seq++) {
      const slot = seq - this.#base;
      if (this.#types[slot] === NONE) continue;
      if ((this.#times[slot] as number) >= beforeMs) break;
      this.#data[slot] = undefined;
      this.#types[slot] = NONE;
      this.#retained--;
    }
    this.#first = seq;
    for (const list of this.#byType) list.dropBefore(seq);
    const forgotten = seq - this.#base;
    if (forgotten >= RECLAIM_MIN_SLOTS && forgotten * 2 >= this.#data.length) {
      this.#data = this.#data.slice(forgotten);
      this.#times.copyWithin(0, forgotten);
      this.#types.copyWithin(0, forgotten);
      this.#types.fill(NONE, this.#data.length);
      this.#base = seq;
    }
    return seq;
  }

  /**
   * A copy of the retained events that later changes of this log do not reach: what a compaction's
   * snapshot reads across turns. Columns and lists are copied whole (memory copies, about 20 bytes an
   * event), the data strings shared.
   */
  copy(): EventLog {
    const copy = new EventLog();
    copy.#base = this.#base;
    copy.#data = this.#data.slice();
    copy.#times = this.#times.slice(0, this.#data.length);
    copy.#types = this.#types.slice(0, this.#data.length);
    copy.#first = this.#first;
    copy.#next = this.#next;
    copy.#retained = this.#retained;
    this.#byType.forEach((list, code) => {
      copy.#byType[code] = list.copy();
    });
    return copy;
  }

  /** Makes room in the columns for `slots` slots, new ones holding no event. */
  #grow(slots: number): void {
    const previous = this.#types.length;
    this.#times = withRoom(this.#times, slots);
    this.#types = withRoom(this.#types, slots);
    this.#types.fill(NONE, previous);
  }

  /** Every retained event, in the order of positions. */
  *values(): Generator<LoggedEvent> {
    const end = this.#base + this.#data.length;
    for (let seq = this.#first; seq < end; seq++) {
      const event = this.get(seq);
      if (event !== undefined) yield event;
    }
  }
}
