// The answer to a failed request, alone: an ApiError as its Error body, a bug as a generic 500 logged
// with the request id, a client gone as no answer (its status kept for the access line), and a body
// left unread closing the connection.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/core/errors.js';
import { ClientGoneError } from '../../src/http/body.js';
import { answerError } from '../../src/http/error-answer.js';
import { ResponseHeaders } from '../../src/http/response-headers.js';
import { fakeRequest, RecordedResponse } from '../helpers/fake-http.js';

test('an ApiError is sent as its Error body with its own headers; nothing is logged', () => {
  const recorded = new RecordedResponse();
  const logged: unknown[] = [];
  const error = new ApiError('method_not_allowed', 'no', undefined, { headers: { allow: 'GET' } });
  answerError(fakeRequest(), recorded.res, new ResponseHeaders('r'), error, 'r', (_id, e) => logged.push(e));
  assert.equal(recorded.statusCode, 405);
  assert.deepEqual(recorded.json, { code: 'method_not_allowed', message: 'no', status: 405 });
  assert.equal(recorded.headers.allow, 'GET');
  assert.equal(recorded.headers.connection, undefined, 'a request without a body keeps its connection');
  assert.deepEqual(logged, []);
});

test('anything else is a 500 that says nothing of it, logged with the request id', () => {
  const recorded = new RecordedResponse();
  const logged: Array<[string, unknown]> = [];
  const bug = new Error('secret detail');
  answerError(fakeRequest(), recorded.res, new ResponseHeaders('req-7'), bug, 'req-7', (id, e) => logged.push([id, e]));
  assert.equal(recorded.statusCode, 500);
  assert.doesNotMatch(recorded.body ?? '', /secret/);
  assert.deepEqual(logged, [['req-7', bug]]);
});

test('a client that went away gets no answer: 499 for the access line, the response destroyed', () => {
  const recorded = new RecordedResponse();
  answerError(fakeRequest(), recorded.res, new ResponseHeaders('r'), new ClientGoneError(), 'r', () => {});
  assert.equal(recorded.statusCode, 499);
  assert.equal(recorded.destroyed, true);
  assert.equal(recorded.headersSent, false);
});

test('a refusal sent while a body is still unread closes the connection; after the headers went out, the response is cut', () => {
  const withBody = fakeRequest({ method: 'POST', headers: { host: 'x', 'content-length': '5' } });
  const recorded = new RecordedResponse();
  answerError(withBody, recorded.res, new ResponseHeaders('r'), new ApiError('unauthorized'), 'r', () => {});
  assert.equal(recorded.headers.connection, 'close');
  const late = new RecordedResponse();
  late.headersSent = true;
  answerError(fakeRequest(), late.res, new ResponseHeaders('r'), new ApiError('conflict'), 'r', () => {});
  assert.equal(late.destroyed, true);
  assert.equal(late.body, undefined);
});

test('an answer that cannot be written (a bug on the way out) cuts the connection and is logged; nothing is thrown', () => {
  const recorded = new RecordedResponse();
  const failure = new Error('cannot write');
  recorded.writeHead = () => {
    throw failure;
  };
  const logged: Array<[string, unknown]> = [];
  answerError(fakeRequest(), recorded.res, new ResponseHeaders('r'), new ApiError('not_found'), 'r', (id, e) =>
    logged.push([id, e]),
  );
  assert.equal(recorded.destroyed, true);
  assert.deepEqual(logged, [['r', failure]]);
});
