// Keeping the load generator out of the measurement. On one machine the service and the generator
// compete for cores, and a generator short of CPU sends fewer requests than the service could answer:
// the figure then measures the generator. So bench:compare pins each service (and the baseline) to
// core 0 and itself to the others with taskset, and measures its own CPU during every run: a run in
// which the generator kept its cores busier than SATURATED_SHARE is generator-bound, and its ratio is
// not printed, whatever it came to.
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Above this share of its cores' time, the generator is taken to have limited the run. */
export const SATURATED_SHARE = 0.9;
/** The variable that tells spawnChild to start services pinned to these CPUs. */
export const SERVICE_CPUS_VARIABLE = 'ANIMAL_STORE_BENCH_SERVICE_CPUS';

/** Which CPUs the services and the generator get. */
export interface PinPlan {
  serviceCpus: string;
  generatorCpus: string;
  generatorCores: number;
}

/** The plan for a machine of `cores` cores: core 0 for the service, the rest for the generator; none below 2 cores. */
export function pinPlan(cores: number): PinPlan | undefined {
  if (cores < 2) return undefined;
  return { serviceCpus: '0', generatorCpus: cores === 2 ? '1' : `1-${cores - 1}`, generatorCores: cores - 1 };
}

/** The share of its cores' time the generator used: CPU ms over elapsed ms times its cores. */
export function generatorShare(cpuMs: number, elapsedMs: number, cores: number): number {
  return elapsedMs > 0 && cores > 0 ? cpuMs / (elapsedMs * cores) : 0;
}

/** Whether a run with this generator share was limited by the generator. */
export function isGeneratorBound(share: number): boolean {
  return share > SATURATED_SHARE;
}

/** The generator's CPUs, once pinGenerator has pinned this run. */
let generatorCpusOfRun: string | undefined;

/**
 * The generator's CPUs once pinGenerator has pinned this run (undefined when it did not pin), for the
 * programs the generator runs beside it. Kept when pinning: after it, availableParallelism() counts
 * only the CPUs this process may use.
 */
export function pinnedGeneratorCpus(): string | undefined {
  return generatorCpusOfRun;
}

/** Whether `taskset` (util-linux) can be run here. */
export function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Pins this process (every thread) to the generator's CPUs and tells spawnChild to pin services to the
 * service's. Returns the plan, or undefined (and why) where it cannot be done.
 */
export function pinGenerator(): { plan: PinPlan | undefined; note: string } {
  const plan = pinPlan(availableParallelism());
  if (plan === undefined) return { plan, note: 'one core: the service and the generator share it (not pinned)' };
  if (!hasTaskset())
    return { plan: undefined, note: 'taskset is not installed: the service and the generator are not pinned' };
  execFileSync('taskset', ['-a', '-p', '-c', plan.generatorCpus, String(process.pid)], { stdio: 'ignore' });
  process.env[SERVICE_CPUS_VARIABLE] = plan.serviceCpus;
  generatorCpusOfRun = plan.generatorCpus;
  return {
    plan,
    note: `services pinned to CPU ${plan.serviceCpus}, the generator to CPU ${plan.generatorCpus} (taskset)`,
  };
}
