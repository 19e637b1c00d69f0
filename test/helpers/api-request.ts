// One request to a running service's API as a key holder sends it (Bearer key, a JSON body, extra
// header fields), with the whole answer read as text, over the test's own connection pool.
import { type Dispatcher, request } from 'undici';

export interface ApiAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends `method path` to the API at `apiUrl` with `key`; `body`, when given, as JSON. */
export async function sendApi(
  dispatcher: Dispatcher,
  apiUrl: string,
  key: string,
  method: Dispatcher.HttpMethod,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiAnswer> {
  const response = await request(`${apiUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    dispatcher,
  });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}
