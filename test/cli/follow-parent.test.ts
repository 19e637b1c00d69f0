// Following the parent under npm: the service stops once the process that started it is gone (npx's
// shell, killed by the SIGTERM npm relays), and only then; a fake parent and timer drive it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  followParent,
  PARENT_CHECK_INTERVAL_MS,
  type ParentWatch,
  startedThroughNpm,
} from '../../src/cli/follow-parent.js';

/** A parent pid the test sets, and a timer the test fires. */
function fakeWatch(parentPid: number): ParentWatch & { parent: number; tick(): void; intervals: number[] } {
  const checks = new Set<() => void>();
  return {
    parent: parentPid,
    intervals: [],
    parentPid() {
      return this.parent;
    },
    every(intervalMs, check) {
      this.intervals.push(intervalMs);
      checks.add(check);
      return () => checks.delete(check);
    },
    tick() {
      for (const check of [...checks]) check();
    },
  };
}

test('nothing happens while the parent stays', () => {
  const watch = fakeWatch(4321);
  const gone: number[] = [];
  followParent((pid) => gone.push(pid), watch);
  for (let tick = 0; tick < 5; tick += 1) watch.tick();
  assert.deepEqual(gone, []);
  assert.deepEqual(watch.intervals, [PARENT_CHECK_INTERVAL_MS]);
});

test('once the parent changes (handed to init or a subreaper), onGone is called once with the former parent', () => {
  const watch = fakeWatch(4321);
  const gone: number[] = [];
  followParent((pid) => gone.push(pid), watch);
  watch.tick();
  watch.parent = 1;
  watch.tick();
  watch.parent = 777;
  watch.tick();
  assert.deepEqual(gone, [4321]);
});

test('the returned function ends the watch', () => {
  const watch = fakeWatch(4321);
  const gone: number[] = [];
  const stop = followParent((pid) => gone.push(pid), watch);
  stop();
  watch.parent = 1;
  watch.tick();
  assert.deepEqual(gone, []);
});

test('a process whose parent is already init, or that has none, follows nothing', () => {
  for (const parent of [1, 0]) {
    const watch = fakeWatch(parent);
    followParent(() => assert.fail('no parent to follow'), watch);
    assert.deepEqual(watch.intervals, []);
  }
});

test('npm start and npx count as started through npm (npm_lifecycle_event); a plain start does not', () => {
  assert.equal(startedThroughNpm({ npm_lifecycle_event: 'start' }), true);
  assert.equal(startedThroughNpm({ npm_lifecycle_event: 'npx' }), true);
  assert.equal(startedThroughNpm({}), false);
  assert.equal(startedThroughNpm({ npm_lifecycle_event: '' }), false);
});
