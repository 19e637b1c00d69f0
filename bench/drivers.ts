// The PostgreSQL driver comparison behind the store's choice: node-postgres (`pg`) against `postgres`
// (porsager), on the statements the store sends most (one pet by id; a page of 20 with its total), with
// the same pool size and concurrency, prepared statements on both. Run: npm run bench:drivers -- URL
// (an empty scratch database: it creates and fills a table `driver_bench`, then drops it).
import pg from 'pg';
import postgres from 'postgres';

const url = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const POOL = 10;
const CONCURRENCY = 50;
const QUERIES = 40_000;
const ROUNDS = 3;

const GET = 'SELECT id, status, json FROM driver_bench WHERE id = $1';
const PAGE =
  'SELECT t.total, p.id, p.status, p.json FROM (SELECT 1000::bigint AS total) AS t LEFT JOIN LATERAL (SELECT id, status, json FROM driver_bench WHERE id > $1 ORDER BY id LIMIT $2) AS p ON true ORDER BY p.id';

async function timed(run: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < QUERIES) await run(next++);
    }),
  );
  return QUERIES / ((performance.now() - started) / 1000);
}

const setup = new pg.Client({ connectionString: url });
await setup.connect();
await setup.query('DROP TABLE IF EXISTS driver_bench');
await setup.query('CREATE TABLE driver_bench (id bigint PRIMARY KEY, status text NOT NULL, json text NOT NULL)');
await setup.query(
  `INSERT INTO driver_bench SELECT i, 'available', '{"id":' || i || ',"name":"pet ' || i || '","categoryId":1,"status":"available"}' FROM generate_series(1, 1000) AS i`,
);

const pool = new pg.Pool({ connectionString: url, max: POOL });
const sql = postgres(url, { max: POOL, prepare: true });
const results: Record<string, number[]> = { 'pg get': [], 'postgres get': [], 'pg page': [], 'postgres page': [] };
for (let round = 0; round < ROUNDS; round++) {
  results['pg get']!.push(await timed((i) => pool.query({ name: 'get', text: GET, values: [(i % 1000) + 1] })));
  results['postgres get']!.push(await timed((i) => sql.unsafe(GET, [(i % 1000) + 1], { prepare: true })));
  results['pg page']!.push(await timed((i) => pool.query({ name: 'page', text: PAGE, values: [i % 900, 21] })));
  results['postgres page']!.push(await timed((i) => sql.unsafe(PAGE, [i % 900, 21], { prepare: true })));
}
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
for (const [name, values] of Object.entries(results))
  console.log(`${name.padEnd(14)} ${Math.round(median(values))} queries/s (median of ${ROUNDS})`);
await pool.end();
await sql.end();
await setup.query('DROP TABLE driver_bench');
await setup.end();
