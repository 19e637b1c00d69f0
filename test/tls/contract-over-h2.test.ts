// The black-box HTTP contract tests again, every service they start serving TLS and every request
// sent over HTTP/2 (undici, ALPN h2): pets, paging, errors (bodies, authentication, the sunset),
// the rate-limit fields, Idempotency-Keys, orders and the webhook routes answer alike over it. Tests
// that write HTTP/1.1 bytes themselves are skipped here (they run over plain HTTP and over TLS).
import { TRANSPORT_VARIABLE } from '../helpers/transport.js';

process.env[TRANSPORT_VARIABLE] = 'h2';
await import('./contract-files.js');
