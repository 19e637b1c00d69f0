// The little of autocannon's programmatic API that bench:compare uses (the package ships no types).
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    headers?: Record<string, string>;
    method?: string;
  }
  interface Result {
    requests: { total: number; average: number };
    /** Seconds the run took. */
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
