// The startup scenario: generate a log of N pets (default 1,000,000) directly in the log format, then
// time createAnimalStore's replay of it and measure resident memory per pet above an empty service.
// Each measurement runs in a fresh child process (startup-child.ts, --expose-gc), so the RSS holds the
// service and nothing of the generator. Targets: at most 2 s, at most 300 bytes per pet.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawnChild, stopChild } from './local-service.js';
import { writeSeedLog } from './seed.js';
import type { StartupSample } from './startup-child.js';

export const DEFAULT_STARTUP_PETS = 1_000_000;

export interface StartupResult {
  pets: number;
  logBytes: number;
  generateMs: number;
  /** createAnimalStore on the generated log: open, lock, read, replay, keys, cursor secret. */
  startMs: number;
  /** Resident memory after start-up, with the pets and without (an empty data directory). */
  rssBytes: number;
  emptyRssBytes: number;
  /** (rss − empty rss) / pets. */
  rssBytesPerPet: number;
  heapUsedBytesPerPet: number;
  /** Peak RSS during start-up, transient replay buffers included. */
  maxRssBytes: number;
  emptyStartMs: number;
}

async function measure(dataDir: string): Promise<StartupSample> {
  const key = `bench-startup-${randomBytes(12).toString('hex')}`;
  const { child, first } = await spawnChild<StartupSample>(
    'bench/startup-child.ts',
    {
      ANIMAL_STORE_BENCH_STARTUP: JSON.stringify({ dataDir, key }),
    },
    ['--expose-gc'],
  );
  await stopChild(child);
  return first;
}

/** Generates the log, measures an empty start and a start on the log, and removes both directories. */
export async function runStartup(pets: number, onStep: (line: string) => void = () => {}): Promise<StartupResult> {
  const emptyDir = await mkdtemp(join(tmpdir(), 'animal-store-bench-empty-'));
  const fullDir = await mkdtemp(join(tmpdir(), 'animal-store-bench-startup-'));
  try {
    onStep(`generating a log of ${pets.toLocaleString('en-US')} pets`);
    const generateStarted = performance.now();
    const logBytes = await writeSeedLog(fullDir, pets);
    const generateMs = performance.now() - generateStarted;
    onStep('starting an empty service');
    const empty = await measure(emptyDir);
    onStep(`starting a service on the ${(logBytes / 1e6).toFixed(0)} MB log`);
    const full = await measure(fullDir);
    if (full.totalPets !== pets) {
      throw new Error(
        `the service replayed ${full.totalPets} pets of ${pets}: has the log format changed? (bench/seed.ts writes it)`,
      );
    }
    return {
      pets,
      logBytes,
      generateMs,
      startMs: full.startMs,
      rssBytes: full.rssBytes,
      emptyRssBytes: empty.rssBytes,
      rssBytesPerPet: pets === 0 ? 0 : (full.rssBytes - empty.rssBytes) / pets,
      heapUsedBytesPerPet: pets === 0 ? 0 : (full.heapUsedBytes - empty.heapUsedBytes) / pets,
      maxRssBytes: full.maxRssBytes,
      emptyStartMs: empty.startMs,
    };
  } finally {
    await rm(emptyDir, { recursive: true, force: true });
    await rm(fullDir, { recursive: true, force: true });
  }
}
