// One statement at a time (statement-batch.ts): while a statement runs, the requests asked meanwhile,
// over any number of turns, gather into the next, which is sent when the running one ends; a full
// batch stops gathering. Without the option, each turn's batch is sent at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MAX_BATCH, StatementBatch } from '../../src/store/postgres/statement-batch.js';

/** A batch whose statements are recorded and end when the test says. */
function recorded(oneAtATime: boolean): { batch: StatementBatch<number, number>; sent: number[][]; end: () => void } {
  const sent: number[][] = [];
  const ends: (() => void)[] = [];
  const batch = new StatementBatch<number, number>(
    (requests) => {
      sent.push([...requests]);
      return new Promise((resolve) => ends.push(() => resolve(requests.map((request) => request * 10))));
    },
    undefined,
    { oneAtATime },
  );
  return { batch, sent, end: () => ends.shift()?.() };
}

test('one at a time: what is asked while a statement runs waits for it, gathered into one', async () => {
  const { batch, sent, end } = recorded(true);
  const first = [batch.ask(1), batch.ask(2)];
  await nextTurn();
  assert.deepEqual(sent, [[1, 2]]);
  const later = [batch.ask(3)];
  await nextTurn();
  later.push(batch.ask(4));
  await nextTurn();
  assert.deepEqual(sent, [[1, 2]], 'nothing more is sent while the first runs');
  end();
  assert.deepEqual(await Promise.all(first), [10, 20]);
  await nextTurn();
  assert.deepEqual(sent, [
    [1, 2],
    [3, 4],
  ]);
  end();
  assert.deepEqual(await Promise.all(later), [30, 40]);
});

test('one at a time: a full batch stops gathering, and the batches wait in order', async () => {
  const { batch, sent, end } = recorded(true);
  const first = batch.ask(0);
  await nextTurn();
  const asked = Array.from({ length: MAX_BATCH + 2 }, (_, index) => batch.ask(index + 1));
  await nextTurn();
  assert.equal(sent.length, 1);
  end();
  await first;
  await nextTurn();
  assert.equal(sent[1]?.length, MAX_BATCH);
  end();
  await nextTurn();
  await nextTurn();
  assert.deepEqual(sent[2], [MAX_BATCH + 1, MAX_BATCH + 2]);
  end();
  assert.equal((await Promise.all(asked)).length, MAX_BATCH + 2);
});

test('by default each turn sends its batch at once, whatever is running', async () => {
  const { batch, sent, end } = recorded(false);
  const first = batch.ask(1);
  await nextTurn();
  const second = batch.ask(2);
  await nextTurn();
  assert.deepEqual(sent, [[1], [2]]);
  end();
  end();
  assert.deepEqual([await first, await second], [10, 20]);
});
