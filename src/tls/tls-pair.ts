// A certificate and its private key, read from their PEM files and checked together before they are
// used: at start (a bad pair stops the start, naming the file) and at every reload (a bad pair is
// refused and the one in force kept). Nothing here knows HTTP.
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';

/** A checked pair: the PEM text of both files, and the certificate (the first of the chain) parsed. */
export interface TlsPair {
  cert: Buffer;
  key: Buffer;
  certificate: X509Certificate;
}

/** Where the pair is read from. */
export interface TlsPaths {
  certPath: string;
  keyPath: string;
}

/** A pair that cannot be used; the message names the file and what is wrong with it. */
export class TlsFileError extends Error {
  override name = 'TlsFileError';
}

/** What an errno code met reading a file means to an operator. */
const READ_PROBLEMS: Readonly<Record<string, string>> = {
  ENOENT: 'there is no such file',
  EACCES: 'no permission to read it',
  EPERM: 'no permission to read it',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of its path is a file, not a directory',
  ELOOP: 'its path has a symbolic link loop',
};

async function readPem(path: string, what: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const problem = READ_PROBLEMS[code] ?? (error as Error).message;
    throw new TlsFileError(`cannot read the TLS ${what} file ${path}: ${problem}${code === '' ? '' : ` (${code})`}`);
  }
}

/** The first line of an OpenSSL message ("error:…:PEM routines::no start line" → "no start line"). */
function openSslReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^error:[0-9A-F]+:[^:]*:[^:]*:/, '');
}

/** Reads both files and checks that they are a PEM certificate and the private key that belongs to it. */
export async function readTlsPair(paths: TlsPaths): Promise<TlsPair> {
  const { certPath, keyPath } = paths;
  const [cert, key] = await Promise.all([readPem(certPath, 'certificate'), readPem(keyPath, 'key')]);
  if (!cert.includes('-----BEGIN CERTIFICATE-----'))
    throw new TlsFileError(
      `the TLS certificate file ${certPath} holds no PEM certificate ("-----BEGIN CERTIFICATE-----")`,
    );
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (error) {
    throw new TlsFileError(
      `the TLS certificate file ${certPath} holds no readable certificate: ${openSslReason(error)}`,
    );
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch (error) {
    // OpenSSL asks for the passphrase and is refused: said as what it is.
    const encrypted = key.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----') || key.includes('Proc-Type: 4,ENCRYPTED');
    const reason = encrypted
      ? 'it is encrypted with a passphrase; give the key unencrypted (readable by the service alone)'
      : `it holds no readable PEM private key: ${openSslReason(error)}`;
    throw new TlsFileError(`the TLS key file ${keyPath} cannot be used: ${reason}`);
  }
  if (!certificate.checkPrivateKey(privateKey))
    throw new TlsFileError(
      `the TLS key file ${keyPath} is not the private key of the certificate in ${certPath} (a half-replaced pair?)`,
    );
  try {
    // What the server will do with them: the rest of a chain, too, must be readable.
    createSecureContext({ cert, key });
  } catch (error) {
    throw new TlsFileError(`the TLS files ${certPath} and ${keyPath} cannot be used together: ${openSslReason(error)}`);
  }
  return { cert, key, certificate };
}

/** The certificate in a few words, for the log: its subject, when it expires, and its fingerprint's start. */
export function describeCertificate(certificate: X509Certificate): string {
  const subject = certificate.subject.replace(/\n/g, ', ');
  const until = new Date(certificate.validTo).toISOString().slice(0, 10);
  return `${subject}, valid until ${until}, SHA-256 ${certificate.fingerprint256.slice(0, 23)}…`;
}

/**
 * Why the certificate should not be served now (expired, or not valid yet), or undefined. Only said,
 * never refused: a start or a reload refused for it would leave clients with no service, or with the
 * older certificate, which is no better.
 */
export function validityProblem(certificate: X509Certificate, nowMs: number): string | undefined {
  const from = Date.parse(certificate.validFrom);
  const to = Date.parse(certificate.validTo);
  if (nowMs > to) return `it expired on ${new Date(to).toISOString()}, so clients will refuse it`;
  if (nowMs < from)
    return `it is valid only from ${new Date(from).toISOString()}, so clients will refuse it until then`;
  return undefined;
}

/** Whether two pairs are the same bytes (a reload that finds nothing new changes nothing). */
export function samePair(a: TlsPair, b: TlsPair): boolean {
  return a.cert.equals(b.cert) && a.key.equals(b.key);
}
