// `animal-store backup --help` and docs/storage.md give one nightly backup example, word for word, so an
// operator who copies either gets the same crontab line.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { BACKUP_HELP } from '../../src/cli/backup.js';

test("docs/storage.md's nightly backup crontab line is backup --help's example", async () => {
  const readme = await readFile(new URL('../../docs/storage.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('A nightly backup'));
  const line = /```\n(0 3 \* \* \* animal-store backup .*)\n```/.exec(section)?.[1];
  assert.ok(line !== undefined, 'docs/storage.md has a crontab line under "A nightly backup"');
  const example = /^Example \(cron[^\n]*\n {2}(.*)$/m.exec(BACKUP_HELP)?.[1];
  assert.equal(example, line);
});
