// The black-box HTTP contract tests again, every service they start serving TLS and every request
// sent over HTTP/1.1 on it (ALPN http/1.1), raw HTTP/1.1 bytes included: pets, paging, errors (bodies,
// authentication, the sunset), the rate-limit fields, Idempotency-Keys, orders and the webhook routes.
import { TRANSPORT_VARIABLE } from '../helpers/transport.js';

process.env[TRANSPORT_VARIABLE] = 'https';
await import('./contract-files.js');
