// Where storage warnings go unless the caller says otherwise: one line on stderr each (docs/storage.md).

/** Writes `message` as one line on stderr. */
export function defaultWarn(message: string): void {
  process.stderr.write(`warning: ${message}\n`);
}
