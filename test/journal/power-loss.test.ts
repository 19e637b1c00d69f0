// The power-loss model: concurrent appends, the power cut at a random file call (keeping a random
// prefix of what was written but not synced), then a restart. Under 'always' every resolved append
// is there; under every durability the log loads, and what it holds is a prefix of what was written.

import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { Durability, Journal } from '../../src/journal/journal.js';
import { MemoryFs } from '../../src/journal/memory-fs.js';
import { openTestJournal, pet } from '../helpers/journal.js';
import { randomInt, seededRandom } from '../helpers/seeded-random.js';

const SEEDS = 40;
const CYCLES = 3;

/** Appends `count` records from `firstId` on, a few at a time across turns of the event loop; resolves to those acknowledged. */
async function appendConcurrently(
  journal: Journal,
  firstId: number,
  count: number,
  random: () => number,
): Promise<string[]> {
  const acknowledged: string[] = [];
  const inFlight: Array<Promise<void>> = [];
  for (let id = firstId; id < firstId + count; id += 1) {
    const payload = pet(id);
    inFlight.push(
      journal.append(payload).then(
        () => void acknowledged.push(payload),
        () => {},
      ),
    );
    if (random() < 0.4) await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(inFlight);
  return acknowledged;
}

async function powerCuts(durability: Durability): Promise<void> {
  let tornTails = 0;
  let acknowledgedInTotal = 0;
  let cutsMidway = 0;
  for (let seed = 1; seed <= SEEDS; seed += 1) {
    const random = seededRandom(seed);
    let fs = new MemoryFs();
    let expected: string[] = [];
    let nextId = 1;
    for (let cycle = 0; cycle < CYCLES; cycle += 1) {
      const label = `${durability} seed ${seed} cycle ${cycle}`;
      const opened = await openTestJournal({ fs, durability, intervalMs: 60_000 });
      if (opened.replayed.tornTail !== undefined) tornTails += 1;
      const ids = opened.replayed.payloads.map((p) => (JSON.parse(p) as { id: number }).id);
      // What survives is always the first records written, in order, with no gap.
      assert.deepEqual(
        ids,
        Array.from({ length: ids.length }, (_, i) => i + 1),
        label,
      );
      if (durability === 'always') {
        for (const payload of expected)
          assert.ok(opened.replayed.payloads.includes(payload), `${label}: acknowledged ${payload} survived`);
      }
      nextId = ids.length + 1;
      const running = fs;
      let image: MemoryFs | undefined;
      const cutAt = running.calls + 1 + randomInt(random, 60);
      running.onCall = () => {
        if (image === undefined && running.calls >= cutAt) image = running.powerLoss(random);
      };
      const acknowledged = await appendConcurrently(opened.journal, nextId, 40, random);
      await opened.journal.close();
      expected = acknowledged;
      acknowledgedInTotal += acknowledged.length;
      if (image !== undefined && acknowledged.length > 0) cutsMidway += 1;
      fs = image ?? running.powerLoss(random);
    }
  }
  // The model must have bitten: cuts in the middle of appending, torn tails, acknowledged appends.
  assert.ok(
    tornTails > 5 && cutsMidway > 5 && acknowledgedInTotal > 100,
    `${tornTails} ${cutsMidway} ${acknowledgedInTotal}`,
  );
}

for (const durability of ['always', 'interval', 'never'] as const) {
  test(`${durability}: after power cuts at random moments the log loads${durability === 'always' ? ' and holds every acknowledged append' : ''}`, async () => {
    await powerCuts(durability);
  });
}
