// The subscription-time check of a webhook URL: shape (absolute http/https, no credentials, no
// fragment, bounded length), literal addresses in every spelling the URL parser normalises, and
// localhost names; the operator's allowPrivate opens the addresses but not the shape rules.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_WEBHOOK_URL_CHARS, validateWebhookUrl } from '../../src/webhooks/webhook-url.js';

const closed = { allowPrivate: false };
const open = { allowPrivate: true };

function reasonOf(raw: string, policy = closed): string {
  const check = validateWebhookUrl(raw, policy);
  assert.equal(check.ok, false, `${raw} was accepted`);
  return check.ok ? '' : check.reason;
}

function urlOf(raw: string, policy = closed): string {
  const check = validateWebhookUrl(raw, policy);
  assert.ok(check.ok, `${raw} was refused: ${check.ok ? '' : check.reason}`);
  return check.url;
}

test('an absolute http or https URL on a public host is accepted in its normalised form', () => {
  assert.equal(urlOf('https://hooks.example.com/in?source=pets'), 'https://hooks.example.com/in?source=pets');
  assert.equal(urlOf('HTTP://Hooks.Example.COM:8080/a/../b'), 'http://hooks.example.com:8080/b');
  assert.equal(urlOf('https://hooks.example.com:443/'), 'https://hooks.example.com/');
  assert.equal(urlOf('http://8.8.8.8/hook'), 'http://8.8.8.8/hook');
  assert.equal(urlOf('https://[2606:4700:4700::1111]/hook'), 'https://[2606:4700:4700::1111]/hook');
  assert.equal(urlOf('https://localhost.example.com/'), 'https://localhost.example.com/');
  // An '@' past the authority is no user name.
  assert.equal(urlOf('https://hooks.example.com/to@team?cc=a@b'), 'https://hooks.example.com/to@team?cc=a@b');
});

test('a URL that is relative or of another scheme is refused, naming the field', () => {
  for (const raw of [
    '',
    '/hooks',
    'hooks.example.com/in',
    'ftp://hooks.example.com/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/plain,hi',
    'ws://hooks.example.com/',
    'gopher://hooks.example.com/',
    'http://',
    'http://exa mple.com/',
  ]) {
    assert.equal(reasonOf(raw), 'url must be an absolute http or https URL', JSON.stringify(raw));
  }
});

test('a URL with a user name, a password or a fragment is refused', () => {
  for (const raw of [
    'https://user:secret@hooks.example.com/',
    'https://user@hooks.example.com/',
    'https://:secret@hooks.example.com/',
    // Empty credentials, which the URL parser drops: sent all the same.
    'https://@hooks.example.com/',
    'https://:@hooks.example.com/',
    'http:\\\\:@hooks.example.com/',
  ]) {
    assert.equal(reasonOf(raw, open), 'url must not contain a user name or password', raw);
  }
  for (const raw of [
    'https://hooks.example.com/#part',
    'https://hooks.example.com/in#',
    'https://hooks.example.com#x',
  ]) {
    assert.equal(reasonOf(raw, open), 'url must not contain a fragment', raw);
  }
});

test('port 0 is refused in every spelling; any other port is taken', () => {
  for (const raw of ['http://hooks.example.com:0/', 'https://hooks.example.com:00/in', 'http://hooks.example.com:000'])
    assert.equal(reasonOf(raw, open), 'url must not name port 0, which nothing can listen on', raw);
  assert.equal(urlOf('http://hooks.example.com:1/'), 'http://hooks.example.com:1/');
  assert.equal(urlOf('https://hooks.example.com:65535/'), 'https://hooks.example.com:65535/');
});

test('a URL longer than 2048 characters is refused, before and after normalisation', () => {
  const base = 'https://hooks.example.com/';
  const longest = base + 'a'.repeat(MAX_WEBHOOK_URL_CHARS - base.length);
  assert.equal(urlOf(longest), longest);
  assert.equal(reasonOf(`${longest}a`), 'url must be at most 2048 characters');
  // Each '"' is stored as %22: 700 of them make 2 100 characters from 726.
  const growing = `${base}${'"'.repeat(700)}`;
  assert.ok(growing.length < MAX_WEBHOOK_URL_CHARS);
  assert.equal(reasonOf(growing), 'url must be at most 2048 characters');
});

test("the URL parser turns a loopback address's other spellings into 127.0.0.1, and each is refused", () => {
  for (const raw of [
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://017700000001/',
    'http://127.1/',
    'http://127.0.1/',
    'http://127.0.0.1./',
    'http://%31%32%37.0.0.1/',
  ]) {
    assert.equal(new URL(raw).hostname, '127.0.0.1', raw);
    assert.equal(reasonOf(raw), 'url must not name an address webhooks may not reach: 127.0.0.1 is loopback', raw);
  }
});

test('literal addresses of every refused kind are refused with their rule, IPv6 and IPv4-mapped included', () => {
  const cases: readonly (readonly [string, string])[] = [
    ['http://[::1]:8080/', '::1 is loopback'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1 is loopback'],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', '::ffff:7f00:1 is loopback'],
    ['http://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe is link-local'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is link-local'],
    ['http://10.1.2.3/', '10.1.2.3 is private'],
    ['http://172.16.0.1/', '172.16.0.1 is private'],
    ['http://192.168.1.1/', '192.168.1.1 is private'],
    ['http://[fd00::1]/', 'fd00::1 is private'],
    ['http://[fe80::1]/', 'fe80::1 is link-local'],
    ['http://100.64.0.1/', '100.64.0.1 is carrier-grade NAT'],
    ['http://224.0.0.1/', '224.0.0.1 is multicast'],
    ['http://[ff02::1]/', 'ff02::1 is multicast'],
    ['http://0/', '0.0.0.0 is unspecified'],
    ['http://[::]/', ':: is unspecified'],
    ['http://192.0.2.1/', '192.0.2.1 is documentation'],
    ['http://[2001:db8::1]/', '2001:db8::1 is documentation'],
    ['http://198.18.0.1/', '198.18.0.1 is benchmarking'],
    ['http://255.255.255.255/', '255.255.255.255 is broadcast'],
    ['http://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1 is loopback'],
    ['http://[2002:7f00:1::]/', '2002:7f00:1:: is loopback'],
  ];
  for (const [raw, rule] of cases) {
    assert.equal(reasonOf(raw), `url must not name an address webhooks may not reach: ${rule}`, raw);
  }
});

test('localhost and every name under it are refused, as RFC 6761 makes them loopback', () => {
  for (const raw of [
    'http://localhost/',
    'http://LOCALHOST:3000/hook',
    'http://localhost./',
    'http://api.localhost/',
    'http://a.b.localhost./',
  ]) {
    assert.equal(reasonOf(raw), 'url must not name localhost, which resolves to loopback', raw);
  }
  assert.equal(urlOf('http://notlocalhost/'), 'http://notlocalhost/');
  assert.equal(urlOf('http://localhost.hooks.example/'), 'http://localhost.hooks.example/');
});

test('allowPrivate accepts every refused address and localhost, but not a malformed URL', () => {
  for (const raw of [
    'http://127.0.0.1:8080/hook',
    'http://[::1]/',
    'http://localhost/',
    'http://10.0.0.1/',
    'http://0x7f.1/',
  ]) {
    const check = validateWebhookUrl(raw, open);
    assert.ok(check.ok, raw);
  }
  assert.equal(urlOf('http://0x7f.1/', open), 'http://127.0.0.1/');
  assert.equal(reasonOf('ftp://127.0.0.1/', open), 'url must be an absolute http or https URL');
});

test('every reason names the url field, as a 400 invalid_body message quotes it', () => {
  for (const raw of [
    'x',
    'ftp://a/',
    'http://u:p@a/',
    'http://a/#f',
    `http://a/${'a'.repeat(3000)}`,
    'http://127.0.0.1/',
    'http://localhost/',
  ]) {
    assert.match(reasonOf(raw), /^url must /, raw);
  }
});
