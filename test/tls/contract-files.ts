// The contract test files run again over TLS (contract-over-https.test.ts) and HTTP/2
// (contract-over-h2.test.ts): those that exercise the rules an answer is made of. The rest of the
// HTTP tests (malformed HTTP/1.1, timeouts, 100-continue on raw sockets, the operational endpoints)
// are of HTTP/1.1 itself or do not depend on the transport; test/tls/tls.test.ts has what is
// particular to TLS and HTTP/2.
await import('../http/pets-api.test.js');
await import('../http/paging.test.js');
await import('../http/request-body.test.js');
await import('../http/authentication.test.js');
await import('../http/sunset.test.js');
await import('../limits-http/rate-limits.test.js');
await import('../orders/orders-api.test.js');
await import('../orders/idempotency.test.js');
await import('../webhooks/webhooks-api.test.js');
