// What the served document promises of any answer, checked: no 5xx; a status the operation describes;
// a body of the media type and schema described for that status (none where none is described); each
// described header, when present, of its schema; and the request id (README "How the API behaves":
// the client's own when it sent a valid one, a new one otherwise).
import { findOperation, responseFor, type ApiDocument } from './openapi-document.js';
import { VALID_REQUEST_ID, type WireRequest } from './request-arbitrary.js';
import type { SchemaChecker } from './schema-check.js';

/** An answer as received. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One broken promise: which property, and how. */
export interface Problem {
  property: string;
  detail: string;
}

/**
 * A field value as the recipient reads it: without the spaces and tabs around it (RFC 9110 §5.5), and
 * only those; String.prototype.trim would also take U+00A0, which a client may send as obs-text.
 */
function withoutWhitespace(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** The JSON body of an answer, or undefined when it has none or it is not JSON. */
export function jsonOf(answer: Answer): unknown {
  try {
    return answer.body.length === 0 ? undefined : (JSON.parse(answer.body.toString('utf8')) as unknown);
  } catch {
    return undefined;
  }
}

/** Every promise of the document that `answer` to `request` breaks. */
export function answerProblems(
  document: ApiDocument,
  checker: SchemaChecker,
  request: WireRequest,
  answer: Answer,
): Problem[] {
  const problems: Problem[] = [];
  if (answer.status >= 500)
    problems.push({
      property: 'never a 5xx',
      detail: `${answer.status} ${answer.body.toString('utf8').slice(0, 300)}`,
    });
  const sentId = request.headers['x-request-id'];
  const answeredId = answer.headers['x-request-id'];
  if (typeof answeredId !== 'string' || !VALID_REQUEST_ID.test(answeredId))
    problems.push({ property: 'a request id on every answer', detail: `X-Request-Id ${JSON.stringify(answeredId)}` });
  else if (
    typeof sentId === 'string' &&
    VALID_REQUEST_ID.test(withoutWhitespace(sentId)) &&
    answeredId !== withoutWhitespace(sentId)
  )
    problems.push({
      property: 'the client request id echoed',
      detail: `sent ${JSON.stringify(sentId)}, answered ${answeredId} with ${answer.status}`,
    });

  const reached = findOperation(document, request.method, request.path.split('?')[0] as string);
  if (reached === undefined) return problems;
  const { operation } = reached;
  const response = responseFor(operation, answer.status);
  if (response === undefined) {
    problems.push({
      property: 'a status the document describes',
      detail: `${operation.id} answered ${answer.status}, described: ${Object.keys(operation.responses).join(' ')}`,
    });
    return problems;
  }
  for (const [name, header] of Object.entries(response.headers)) {
    const value = answer.headers[name];
    if (value === undefined) {
      if (header.required) problems.push({ property: 'the headers the document describes', detail: `${name} missing` });
      continue;
    }
    const problem = checker.headerProblems(header.schema, Array.isArray(value) ? value.join(', ') : value);
    if (problem !== undefined)
      problems.push({ property: 'the headers the document describes', detail: `${name}: ${problem}` });
  }
  const mediaTypes = Object.keys(response.content);
  if (mediaTypes.length === 0) {
    if (answer.body.length > 0)
      problems.push({
        property: 'the body the document describes',
        detail: `${answer.status} has a body, none described`,
      });
    return problems;
  }
  const contentType = String(answer.headers['content-type'] ?? '');
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const schema = response.content[mediaType];
  if (schema === undefined) {
    problems.push({
      property: 'the body the document describes',
      detail: `${answer.status} is ${JSON.stringify(contentType)}, described: ${mediaTypes.join(', ')}`,
    });
    return problems;
  }
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    if (contentType.toLowerCase().replace(/\s/g, '') !== `${mediaType};charset=utf-8`)
      problems.push({ property: 'JSON answers in UTF-8', detail: `Content-Type ${JSON.stringify(contentType)}` });
    const value = jsonOf(answer);
    const problem =
      value === undefined ? 'not JSON: ' + answer.body.toString('utf8').slice(0, 200) : checker.problems(schema, value);
    if (problem !== undefined)
      problems.push({
        property: 'the body the document describes',
        detail: `${operation.id} ${answer.status}: ${problem}`,
      });
  }
  return problems;
}
