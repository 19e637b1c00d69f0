// The crash tests' load and read-back over HTTP: creates of pets sent without pause over many
// connections until the test stops them or the service dies under them, and every pet listed after a
// restart, page by page.
import assert from 'node:assert/strict';
import { type Agent, type Dispatcher, request } from 'undici';

export interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

export interface PetCreateBody {
  name: string;
  categoryId: number;
}

export interface PetCreatesOptions {
  /** The API's base URL, as waitForListening gives it. */
  apiUrl: string;
  agent: Agent;
  key: string;
  /** Creates in flight at once. */
  connections: number;
  /** The body of the `sent`th create. */
  body(sent: number): PetCreateBody;
  /** What is wrong with `pet`, answered 201 to `body` (nothing: an empty list). */
  check?(pet: Pet, body: PetCreateBody): readonly string[];
  /** Every pet answered 201, by id: added to as they are answered. */
  acknowledged: Map<number, Pet>;
}

/** Creates under way: `violations` (an answer other than 201, what `check` found) and `stop`. */
export interface PetCreates {
  readonly violations: string[];
  /** Stops sending and waits for every create in flight (one whose connection died ends at once). */
  stop(): Promise<void>;
}

export function sendPetCreates(options: PetCreatesOptions): PetCreates {
  const { apiUrl, agent, key, acknowledged } = options;
  const violations: string[] = [];
  let stopped = false;
  let sent = 0;
  const sender = async (): Promise<void> => {
    while (!stopped) {
      const body = options.body(sent++);
      let status: number;
      let text: string;
      try {
        const response = await request(`${apiUrl}/pets`, {
          method: 'POST',
          dispatcher: agent,
          body: JSON.stringify(body),
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        });
        text = await response.body.text();
        status = response.statusCode;
      } catch {
        return; // The connection died with the process.
      }
      if (status !== 201) {
        violations.push(`unexpected ${status}: ${text}`);
        continue;
      }
      const pet = JSON.parse(text) as Pet;
      violations.push(...(options.check?.(pet, body) ?? []));
      acknowledged.set(pet.id, pet);
    }
  };
  const senders = Array.from({ length: options.connections }, () => sender());
  return {
    violations,
    stop: async () => {
      stopped = true;
      await Promise.all(senders);
    },
  };
}

/** Every pet the service lists, by id, read by following its `Link` pages of 100. */
export async function listAllPets(apiUrl: string, agent: Agent, key: string): Promise<Map<number, Pet>> {
  const pets = new Map<number, Pet>();
  let path: string | undefined = '/pets?limit=100';
  while (path !== undefined) {
    const response: Dispatcher.ResponseData = await request(`${apiUrl}${path.replace(/^\/v1/, '')}`, {
      headers: { authorization: `Bearer ${key}` },
      dispatcher: agent,
    });
    assert.equal(response.statusCode, 200);
    for (const pet of (await response.body.json()) as Pet[]) pets.set(pet.id, pet);
    const link = response.headers.link as string | undefined;
    path = link === undefined ? undefined : /^<([^>]+)>/.exec(link)?.[1];
  }
  return pets;
}
