// Event ids: `evt_`, ten letters that belong to the store, then the event's position in the order of
// recording. The position makes an id cheap to look up (no index of ids is kept: the embedded store
// holds a million events in about 200 bytes each) and unique for the store's life; the letters, derived
// from the store's own secret, keep ids of a store started afresh from repeating an earlier store's,
// so a receiver that de-duplicates on `webhook-id` never drops a new event as an old one.
import { createHmac } from 'node:crypto';

const ID_PREFIX = 'evt_';
const STORE_LETTERS = 10;

/** The ten lowercase letters of the store whose secret is `secret`. */
export function eventIdLetters(secret: Buffer): string {
  const digest = createHmac('sha256', secret).update('event ids').digest();
  let letters = '';
  for (let index = 0; index < STORE_LETTERS; index++)
    letters += String.fromCharCode(97 + ((digest[index] as number) % 26));
  return letters;
}

/** The id of the event recorded at `seq` in the store with `letters`. */
export const eventId = (letters: string, seq: number): string => `${ID_PREFIX}${letters}${seq}`;

/** The position an event id names in the store with `letters`, or undefined when it is not one of its ids. */
export function eventSeqOf(letters: string, id: string): number | undefined {
  const start = ID_PREFIX.length + letters.length;
  if (!id.startsWith(ID_PREFIX) || id.slice(ID_PREFIX.length, start) !== letters) return undefined;
  const digits = id.slice(start);
  if (!/^[1-9][0-9]{0,15}$/.test(digits)) return undefined;
  const seq = Number(digits);
  return Number.isSafeInteger(seq) ? seq : undefined;
}
