// Secrets in engine settings: which keys hold one (Spark's own spark.redaction.regex
// `(?i)secret|password|token|access[.]key`, plus the names cloud and Hudi settings use), how values
// are masked in what tblcli prints, and shell quoting for the printed command line.

export const MASK = '*****';

const SECRET_KEY = /secret|password|passwd|token|access[._-]?key|account\.key|api[._-]?key|credential|private[._-]?key|signature|jaas/i;

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** Query parameters that carry credentials in signed URLs (S3 presigned, Azure SAS, tokens). */
const SECRET_QUERY = /^(sig|signature|token|access_token|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential)$/i;

/** Why a URL-ish value carries a credential (user:password@ or a signed query), else undefined. */
export function urlCredential(value: string): string | undefined {
  const m = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/@?#]*)@/.exec(value);
  if (m && m[1]!.includes(':')) return 'a password in the URL';
  const q = value.indexOf('?');
  if (q >= 0 && /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(value)) {
    for (const part of value.slice(q + 1).split(/[&#]/)) {
      const name = decodeURIComponent(part.split('=')[0] ?? '');
      if (SECRET_QUERY.test(name) || isSecretKey(name)) return `a signed query parameter (${name})`;
    }
  }
  return undefined;
}

/** The value with a URL's password and signed query parameters masked. */
export function maskUrl(value: string): string {
  let v = value.replace(/^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/@?#:]*):[^/@?#]*@/, `$1:${MASK}@`);
  const q = v.indexOf('?');
  if (q >= 0 && /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(v)) {
    const masked = v
      .slice(q + 1)
      .split('&')
      .map((part) => {
        const [name = '', ...rest] = part.split('=');
        return rest.length > 0 && (SECRET_QUERY.test(decodeURIComponent(name)) || isSecretKey(decodeURIComponent(name))) ? `${name}=${MASK}` : part;
      })
      .join('&');
    v = `${v.slice(0, q + 1)}${masked}`;
  }
  return v;
}

/** `k=v` with the value masked when the key names a secret, and any URL credential masked. */
export function maskPair(key: string, value: string): string {
  return `${key}=${isSecretKey(key) ? MASK : maskUrl(value)}`;
}

/**
 * Replaces every occurrence of the given secret values in text (engine output, error lines).
 * Values shorter than 4 characters are not replaced: they would mask ordinary words.
 */
export class Redactor {
  private readonly values: string[];

  constructor(values: Iterable<string>) {
    this.values = [...new Set([...values].filter((v) => v.length >= 4))].sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let out = text;
    for (const v of this.values) if (out.includes(v)) out = out.split(v).join(MASK);
    return out.replace(/([a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/@?#:\s]*):[^/@?#\s]*@/g, `$1:${MASK}@`);
  }
}

/** POSIX shell quoting of one word (for printing command lines a user can copy). */
export function shellQuote(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./[\]-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function shellLine(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
