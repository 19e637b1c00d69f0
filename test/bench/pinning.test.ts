// The generator's own share of CPU and the pinning plan: the pure parts of keeping the load
// generator out of the figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generatorShare, isGeneratorBound, pinPlan, SATURATED_SHARE } from '../../bench/pinning.js';

test('the service gets core 0 and the generator the rest; one core is not pinned', () => {
  assert.equal(pinPlan(1), undefined);
  assert.deepEqual(pinPlan(2), { serviceCpus: '0', generatorCpus: '1', generatorCores: 1 });
  assert.deepEqual(pinPlan(8), { serviceCpus: '0', generatorCpus: '1-7', generatorCores: 7 });
});

test('a generator that kept its cores busier than the threshold limited the run', () => {
  assert.equal(generatorShare(950, 1000, 1), 0.95);
  assert.equal(generatorShare(950, 1000, 2), 0.475);
  assert.equal(generatorShare(10, 0, 1), 0);
  assert.equal(isGeneratorBound(generatorShare(950, 1000, 1)), true);
  assert.equal(isGeneratorBound(generatorShare(SATURATED_SHARE * 1000, 1000, 1)), false);
  assert.equal(isGeneratorBound(generatorShare(600, 1000, 1)), false);
});
