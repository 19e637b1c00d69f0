// A sorted array of ids with binary search: the index a page is cut from in O(log n + limit).
// Ids arrive almost always in ascending order (creation), so insertion is an append in that case;
// a status change (orders) moves one id between arrays with a splice, a memmove of at most n numbers.

/** The position of the first id greater than `afterId` (n when there is none). */
export function firstAfter(ids: readonly number[], afterId: number): number {
  let low = 0;
  let high = ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((ids[middle] as number) <= afterId) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Inserts `id` keeping `ids` ascending; an id already present is left alone. */
export function insertId(ids: number[], id: number): void {
  const last = ids.length === 0 ? 0 : (ids[ids.length - 1] as number);
  if (id > last) {
    ids.push(id);
    return;
  }
  const position = firstAfter(ids, id);
  if (position > 0 && ids[position - 1] === id) return;
  ids.splice(position, 0, id);
}

/** Removes `id` from the ascending `ids`, if present. */
export function removeId(ids: number[], id: number): void {
  const position = firstAfter(ids, id) - 1;
  if (position >= 0 && ids[position] === id) ids.splice(position, 1);
}
