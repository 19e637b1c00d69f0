// Reading Link headers (RFC 8288) for the paging relation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linkTarget } from '../../src/client/link.js';

test('the target of rel="next" is found as the service sends it', () => {
  assert.equal(
    linkTarget('</v1/pets?limit=20&cursor=abc.def>; rel="next"', 'next'),
    '/v1/pets?limit=20&cursor=abc.def',
  );
});

test('rel is matched case-insensitively, quoted or not, among several links and relations', () => {
  const header = '</v1/pets>; rel="successor-version", <https://x.test/p?a=1,2>; title="a, b"; rel="prev NEXT"';
  assert.equal(linkTarget(header, 'next'), 'https://x.test/p?a=1,2');
  assert.equal(linkTarget(header, 'successor-version'), '/v1/pets');
  assert.equal(linkTarget('</a>; rel=next', 'next'), '/a');
  assert.equal(linkTarget(['</a>; rel="prev"', '</b>; rel="next"'], 'next'), '/b');
});

test('no Link header, or no such relation, gives undefined', () => {
  assert.equal(linkTarget(undefined, 'next'), undefined);
  assert.equal(linkTarget('</v1/pets>; rel="successor-version"', 'next'), undefined);
  assert.equal(linkTarget('</v1/pets>', 'next'), undefined);
});
