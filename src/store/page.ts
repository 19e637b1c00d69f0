// A page of a listing, as every store reads one: what to read and what came back.

/** Which page to read: up to `limit` items with ids above `afterId`, ascending, optionally of one status. */
export interface PageRequest<S extends string> {
  status: S | undefined;
  afterId: number;
  limit: number;
}

/** One page of a listing. */
export interface Page<T> {
  items: T[];
  /** True when more items match after the last one of this page. */
  more: boolean;
  /** How many items match the filter in all. */
  total: number;
}
