// Stopping with the wrapper that started the service. `npx animal-store serve` runs the service as
// npm → sh → node: npm relays SIGTERM and SIGINT to its child, the shell, which dies of it without
// passing it on, and the service would go on serving as an orphan, holding the port and the data
// directory's lock. So when started through npm, the service watches its parent: once that process is
// gone (the service was handed to init or a subreaper), it stops as it would on SIGTERM.
//
// Only under npm: npm always waits for the process it starts, so its child vanishing means a stop. A
// service started otherwise may be meant to outlive its parent (`setsid animal-store serve`,
// `nohup animal-store serve &`), and is left alone.

/** How often the parent is looked at, in ms: a stop is noticed within this (a supervisor waits seconds). */
export const PARENT_CHECK_INTERVAL_MS = 500;

/** What the watch reads and how it waits; the process's own by default, a fake one in tests. */
export interface ParentWatch {
  /** The pid of this process's parent now. */
  parentPid(): number;
  /** Calls `check` every `intervalMs` ms, without keeping the process alive; returns what ends it. */
  every(intervalMs: number, check: () => void): () => void;
}

/** This process's parent, and a timer that does not keep the process alive. */
export const processParentWatch: ParentWatch = {
  parentPid: () => process.ppid,
  every(intervalMs, check) {
    const timer = setInterval(check, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** Whether this process was started through npm (a package script such as `npm start`, or npx), which sets npm_lifecycle_event. */
export function startedThroughNpm(env: NodeJS.ProcessEnv): boolean {
  return (env.npm_lifecycle_event ?? '') !== '';
}

/**
 * Calls `onGone` once, with the pid of the parent that was, when this process's parent changes;
 * returns what stops the watch. A process whose parent is already init (pid 1) or none has nothing to follow.
 */
export function followParent(
  onGone: (formerParentPid: number) => void,
  watch: ParentWatch = processParentWatch,
): () => void {
  const parent = watch.parentPid();
  if (parent <= 1) return () => {};
  const stop = watch.every(PARENT_CHECK_INTERVAL_MS, () => {
    if (watch.parentPid() === parent) return;
    stop();
    onGone(parent);
  });
  return stop;
}

/** When started through npm, calls `stop` once the parent is gone, having said why with `warn`. */
export function stopWithParentUnderNpm(env: NodeJS.ProcessEnv, warn: (line: string) => void, stop: () => void): void {
  if (!startedThroughNpm(env)) return;
  followParent((formerParentPid) => {
    warn(`the process that started this one (pid ${formerParentPid}) is gone; stopping as on SIGTERM`);
    stop();
  });
}
