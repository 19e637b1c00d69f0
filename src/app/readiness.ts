// Readiness: whether every backing server the configuration names can take work. The answer goes to
// anyone who asks (/readyz needs no key), so it names which part is not ready and nothing more; the
// cause (an address, a path, an errno) goes to the log, once when the part stops being ready and once
// when it is back, not on every probe.

/** A part the service depends on, and how to ask it. */
export interface ReadinessProbe {
  /** What a client is told is not ready: "the store", "the rate limiter". */
  name: string;
  ping(): Promise<void>;
}

/** Asks every probe in turn; rejects with a message naming the first that is not ready. */
export function readinessCheck(probes: readonly ReadinessProbe[], warn: (line: string) => void): () => Promise<void> {
  const failing = new Set<string>();
  return async () => {
    for (const probe of probes) {
      try {
        await probe.ping();
      } catch (error) {
        if (!failing.has(probe.name)) {
          failing.add(probe.name);
          warn(`not ready: ${probe.name} cannot take work: ${error instanceof Error ? error.message : String(error)}`);
        }
        throw new Error(`${probe.name} cannot take work now; retry shortly`);
      }
      if (failing.delete(probe.name)) warn(`ready again: ${probe.name} takes work`);
    }
  };
}
