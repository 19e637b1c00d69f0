// README "How the API behaves": paging through a few hundred animals, with creates in between.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, createPet, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
const STATUSES = ['available', 'pending', 'sold'] as const;

before(async () => {
  server = await startServer();
  for (let index = 0; index < 300; index++) {
    await createPet(server, { name: `pet ${index}`, categoryId: 1 + (index % 7), status: STATUSES[index % 3] });
  }
});
after(() => server.close());

interface Pet {
  id: number;
  status: string;
}

/** Follows Link rel="next" from `firstPath` to the end; creates a pet after every page. */
async function pageThrough(
  firstPath: string,
  status?: string,
): Promise<{ seen: number[]; created: number[]; pages: number }> {
  const seen: number[] = [];
  const created: number[] = [];
  let path: string | undefined = firstPath;
  let pages = 0;
  while (path !== undefined) {
    const reply = await call(server, 'GET', path);
    assert.equal(reply.status, 200, path);
    seen.push(...(reply.json as Pet[]).map((pet) => pet.id));
    pages++;
    const link = reply.headers.link as string | undefined;
    if (link === undefined) {
      assert.equal(reply.headers['x-next'], undefined);
      path = undefined;
    } else {
      const match = /^<([^>]+)>; rel="next"$/.exec(link);
      assert.ok(match, link);
      path = match[1] as string;
      assert.equal(reply.headers['x-next'], path);
      assert.match(
        path,
        status === undefined
          ? /^\/v1\/pets\?limit=\d+&cursor=[A-Za-z0-9_.-]+$/
          : new RegExp(`^/v1/pets\\?limit=\\d+&status=${status}&cursor=[A-Za-z0-9_.-]+$`),
      );
    }
    const pet = await createPet(server, { name: 'created while paging', categoryId: 1, status: status ?? 'available' });
    created.push(pet.id);
  }
  return { seen, created, pages };
}

test('paging through every animal with creates in between skips and repeats nothing', async () => {
  const before = (await call(server, 'GET', '/v1/pets?limit=1')).headers['x-total-count'];
  const { seen, created, pages } = await pageThrough('/v1/pets?limit=7');
  assert.equal(new Set(seen).size, seen.length, 'no animal is repeated');
  assert.deepEqual(
    seen,
    [...seen].sort((a, b) => a - b),
    'ascending id order',
  );
  const expected = Array.from({ length: Number(before) }, (_, index) => index + 1);
  for (const id of expected) assert.ok(seen.includes(id), `animal ${id} was not skipped`);
  // Animals created while paging come after the cursor, so all but the last one are seen too.
  for (const id of created.slice(0, -1)) assert.ok(seen.includes(id), `animal ${id} created while paging is seen`);
  assert.ok(pages > 40);
});

test('paging a status filter keeps the filter in Link and returns only that status', async () => {
  const { seen } = await pageThrough('/v1/pets?status=sold&limit=9', 'sold');
  const all = (await call(server, 'GET', '/v1/pets?status=sold&limit=100')).headers['x-total-count'];
  assert.ok(seen.length >= 100);
  assert.ok(Number(all) >= seen.length);
  for (const id of seen) {
    const pet = (await call(server, 'GET', `/v1/pets/${id}`)).json as Pet;
    assert.equal(pet.status, 'sold');
  }
});

test('limit defaults to 20, the effective limit is always in Link, and it may change between pages', async () => {
  const first = await call(server, 'GET', '/v1/pets');
  assert.equal((first.json as Pet[]).length, 20);
  const next = /^<([^>]+)>/.exec(String(first.headers.link))?.[1] as string;
  assert.match(next, /^\/v1\/pets\?limit=20&cursor=/);
  const bigger = await call(server, 'GET', next.replace('limit=20', 'limit=100'));
  const ids = (bigger.json as Pet[]).map((pet) => pet.id);
  assert.equal(ids.length, 100);
  assert.equal(ids[0], 21);
});

test('X-Total-Count counts the animals matching the filter', async () => {
  const total = Number((await call(server, 'GET', '/v1/pets')).headers['x-total-count']);
  const counts = await Promise.all(
    STATUSES.map(async (status) =>
      Number((await call(server, 'GET', `/v1/pets?status=${status}`)).headers['x-total-count']),
    ),
  );
  assert.equal(
    counts.reduce((sum, count) => sum + count, 0),
    total,
  );
});

test('a cursor is refused for another filter, for no filter, and when forged, empty or overlong', async () => {
  const sold = await call(server, 'GET', '/v1/pets?status=sold&limit=5');
  const cursor = /cursor=([^>&]+)/.exec(String(sold.headers.link))?.[1] as string;
  assert.equal((await call(server, 'GET', `/v1/pets?status=sold&cursor=${cursor}`)).status, 200);
  for (const query of [
    `status=pending&cursor=${cursor}`,
    `cursor=${cursor}`,
    'cursor=abc',
    `cursor=${cursor.slice(0, -2)}AA`,
    `cursor=${Buffer.from('pets||0').toString('base64url')}.${'A'.repeat(22)}`,
    'cursor=',
    `cursor=${cursor}${'A'.repeat(1000)}`,
    'limit=5&cursor=%00',
  ]) {
    const reply = await call(server, 'GET', `/v1/pets?${query}`);
    assert.equal(reply.status, 400, query);
    assert.equal((reply.json as { code: string }).code, 'invalid_cursor', query);
  }
});

test('the last page carries neither Link nor X-Next, also when it is exactly full', async () => {
  const small = await startServer();
  try {
    for (let index = 0; index < 5; index++) await createPet(small, { name: `p${index}`, categoryId: 1 });
    const full = await call(small, 'GET', '/v1/pets?limit=5');
    assert.equal((full.json as Pet[]).length, 5);
    assert.equal(full.headers.link, undefined);
    assert.equal(full.headers['x-next'], undefined);
    const first = await call(small, 'GET', '/v1/pets?limit=4');
    assert.ok(first.headers.link !== undefined);
    const next = /^<([^>]+)>/.exec(String(first.headers.link))?.[1] as string;
    const last = await call(small, 'GET', next);
    assert.deepEqual(
      (last.json as Pet[]).map((pet) => pet.id),
      [5],
    );
    assert.equal(last.headers.link, undefined);
    assert.equal(last.headers['x-total-count'], '5');
  } finally {
    await small.close();
  }
});

test('the query is decoded as a form: percent-escapes and + are read, names stay case-sensitive', async () => {
  const escaped = await call(server, 'GET', '/v1/pets?limi%74=3&status=s%6Fld');
  assert.equal(escaped.status, 200);
  assert.equal((escaped.json as Pet[]).length, 3);
  assert.ok((escaped.json as Pet[]).every((pet) => pet.status === 'sold'));
  assert.match(String(escaped.headers.link), /limit=3&status=sold&cursor=/);
  const upper = await call(server, 'GET', '/v1/pets?LIMIT=3&Status=nonsense');
  assert.equal(upper.status, 200, 'unknown names are ignored');
  assert.equal((upper.json as Pet[]).length, 20);
  const plus = await call(server, 'GET', '/v1/pets?status=sold+');
  assert.equal(plus.status, 400, '+ is a space, and "sold " is not a state');
  assert.equal((plus.json as { code: string }).code, 'invalid_query');
  assert.equal((await call(server, 'GET', '/v1/pets?limit=3&limi%74=4')).status, 400, 'an escaped repeat is a repeat');
});
