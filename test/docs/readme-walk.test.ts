// The README's own commands, run as written against a real service started as `npm start` starts it:
// the curl session (each "# ..." line under a command is text its output must contain) and the keys
// lines. So the README cannot drift from what the service does. Needs curl (skipped with one line without it).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Child, runCli, waitForListening } from '../helpers/child.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const skip = existsSync('/usr/bin/curl') ? false : 'no curl at /usr/bin/curl';

/** One command of a README block, with the output it promises. */
interface Step {
  command: string;
  expected: string[];
}

/** The shell block under `heading`, as commands (joined across `\` line ends) with their "# " promises. */
function readmeSteps(readme: string, heading: string): Step[] {
  const section = readme.slice(readme.indexOf(`\n${heading}\n`));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const steps: Step[] = [];
  let pending = '';
  for (const line of block.split('\n')) {
    if (line.startsWith('#')) {
      // "# x-total-count: 1      (and Link ...)": the promise is the text before a wide gap.
      steps.at(-1)?.expected.push((line.slice(2).split(/\s{2,}/)[0] ?? '').trim());
      continue;
    }
    if (line.trim() === '') continue;
    const text = pending + line;
    if (text.endsWith('\\')) {
      pending = `${text.slice(0, -1)} `;
      continue;
    }
    pending = '';
    // An inline comment that starts with a JSON object promises that object.
    const [command = '', comment = ''] = text.split(/\s+#\s/);
    const inline = /^(\{[^}]*\})/.exec(comment)?.[1];
    steps.push({ command: command.trim(), expected: inline === undefined ? [] : [inline] });
  }
  return steps;
}

function sh(command: string, env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], { cwd: ROOT, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number(error.code ?? 1), out: stdout + stderr });
    });
  });
}

let server: Child;
let dataDir: string;
let origin: string;
let key: string;
before(async () => {
  if (skip !== false) return;
  dataDir = await mkdtemp(join(tmpdir(), 'animal-store-readme-'));
  server = runCli(['serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn']);
  origin = new URL(await waitForListening(server)).origin;
  key = /^\s+(ask_\S+)\s*$/m.exec(server.stdout())?.[1] ?? '';
  assert.ok(key !== '', server.stdout());
});
after(async () => {
  if (skip !== false) return;
  server.process.kill('SIGTERM');
  await server.exited;
  await rm(dataDir, { recursive: true, force: true });
});

/** A README line made runnable here: this server's address, this repository's CLI, the printed key. */
function runnable(command: string): string {
  return command
    .replaceAll('localhost:8080', origin.replace('http://', ''))
    .replaceAll('npm run cli --', `node --import tsx ${join(ROOT, 'src', 'cli.ts')}`);
}

test('the curl session of the README gives what its comments say', { skip }, async () => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const steps = readmeSteps(readme, '## A curl session');
  assert.ok(steps.length >= 6, 'the session was found');
  for (const step of steps) {
    if (step.command.startsWith('KEY=')) continue;
    const { code, out } = await sh(runnable(step.command), { KEY: key });
    assert.equal(code, 0, `${step.command}\n${out}`);
    for (const expected of step.expected)
      assert.ok(out.includes(expected), `${step.command}\nexpected ${expected} in:\n${out}`);
  }
});

test('the keys lines of the README work as written on the directory of a running service', { skip }, async () => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const steps = readmeSteps(readme, '## Keys and plans');
  assert.ok(steps.length >= 5, 'the keys lines were found');
  let createdId = '';
  for (const step of steps) {
    // The example id is one the README made up: revoke the key the first line created instead.
    const command = runnable(step.command).replace('key_1a2b3c4d', createdId);
    const { code, out } = await sh(command, { KEY: key, ANIMAL_STORE_DATA_DIR: dataDir });
    assert.equal(code, 0, `${command}\n${out}`);
    createdId ||= /Created key (key_[0-9a-f]{8})/.exec(out)?.[1] ?? '';
  }
  assert.match(createdId, /^key_/);
});
