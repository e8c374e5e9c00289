/**
 * TLS for a PostgreSQL source, with libpq's meaning of `sslmode` (the client, node-pg, has its
 * own, stricter meanings of the same words, so the app always sets its `ssl` itself):
 *
 * - `disable`: no TLS.
 * - `require`: TLS, the server's certificate not verified (encrypted, not authenticated: libpq's
 *   meaning).
 * - `verify-ca`: TLS, the certificate verified against the root certificate, the host name not.
 * - `verify-full`: TLS, the certificate and the host name verified.
 * - `prefer` / `allow` are refused: they fall back to a cleartext connection when TLS fails, which
 *   node-pg cannot do, and which an attacker in the middle can force; the message says what to write.
 *
 * Where: the URL's `?sslmode=`, else PGSSLMODE (as libpq reads it), else no TLS (as RAP Studio has
 * always connected; libpq's own default, `prefer`, is the fallback refused above). The root
 * certificate for verify-ca/verify-full: the URL's `?sslrootcert=` (a file), else PGSSLROOTCERT,
 * else ~/.postgresql/root.crt where it exists, else the system's trusted authorities (`system`).
 * A Unix socket (a host starting with '/') never uses TLS (libpq ignores sslmode there).
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import { InputError } from '../errors.ts';

export const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** What a source's URL says of TLS (nothing: the environment decides at connect time). */
export interface PostgresTls {
  readonly mode?: SslMode;
  /** `?sslrootcert=`: a PEM file of the root certificate(s), or `system`. */
  readonly rootCert?: string;
}

/** The URL parameters about TLS that a source's URL may hold. */
export const TLS_PARAMETERS = ['sslmode', 'sslrootcert'] as const;

const CHOICES = `${SSL_MODES.join(', ')}`;

/** `text` as sslmode: one of SSL_MODES, or refused naming where it came from and the choices. */
function sslMode(text: string, where: string): SslMode {
  if ((SSL_MODES as readonly string[]).includes(text)) return text as SslMode;
  if (text === 'prefer' || text === 'allow') {
    throw new InputError(
      `${where}: sslmode=${text} falls back to an unencrypted connection when TLS fails, which RAP Studio ` +
        `does not do (the password and the exact counts would then cross the network in clear). Write ` +
        `sslmode=require (TLS, certificate not verified), verify-ca or verify-full (TLS, certificate verified), ` +
        `or disable (no TLS).`,
      { field: 'data' },
    );
  }
  throw new InputError(`${where}: sslmode "${text}" is not one of ${CHOICES}.`, { field: 'data' });
}

/** The URL's TLS parameters (`shown`: the URL as a message may name it, no password). */
export function tlsFromUrl(url: URL, shown: string): PostgresTls | undefined {
  const mode = url.searchParams.get('sslmode');
  const rootCert = url.searchParams.get('sslrootcert');
  if (mode === null && rootCert === null) return undefined;
  return {
    ...(mode !== null ? { mode: sslMode(mode, `${shown}: the URL's sslmode`) } : {}),
    ...(rootCert !== null && rootCert !== '' ? { rootCert } : {}),
  };
}

/** The URL's query parameters other than `allowed`: refused, naming the first. */
export function refuseUnknownParameters(url: URL, shown: string, allowed: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of url.searchParams.keys()) {
    if (seen.has(name)) {
      throw new InputError(`${shown}: the URL gives "${name}" twice; give it once.`, { field: 'data' });
    }
    seen.add(name);
    if (!allowed.includes(name)) {
      throw new InputError(
        `${shown}: the URL parameter "${name}" is not one RAP Studio reads (it reads ${allowed.join(', ')}); ` +
          'remove it (credentials and other connection settings go in the environment: PGUSER, PGPASSWORD, ' +
          'PGSSLMODE… or ~/.pgpass).',
        { field: 'data' },
      );
    }
  }
}

/** node-pg's `ssl`: false (no TLS) or the TLS options libpq's mode means. */
export type ClientSsl = false | ConnectionOptions;

/**
 * The client's `ssl` for a connection to `host` (`shown`: the source as a message names it).
 * Reads PGSSLMODE and PGSSLROOTCERT where the URL is silent, and the root certificate's file.
 */
export function clientSsl(
  tls: PostgresTls | undefined,
  host: string | undefined,
  shown: string,
  env: NodeJS.ProcessEnv = process.env,
): ClientSsl {
  const envMode = env.PGSSLMODE;
  const mode: SslMode =
    tls?.mode ??
    (envMode !== undefined && envMode !== '' ? sslMode(envMode, `${shown}: PGSSLMODE`) : 'disable');
  // libpq: "sslmode is ignored for Unix domain socket communication".
  if (mode === 'disable' || host?.startsWith('/')) return false;
  if (mode === 'require') return { rejectUnauthorized: false };
  const given = tls?.rootCert ?? (env.PGSSLROOTCERT || undefined);
  const fallback = path.join(homedir(), '.postgresql', 'root.crt');
  const file = given ?? (existsSync(fallback) ? fallback : 'system');
  let ca: string | undefined;
  if (file !== 'system') {
    try {
      ca = readFileSync(file, 'utf8');
    } catch (err) {
      throw new InputError(
        `${shown}: cannot read the root certificate ${file} (sslrootcert) for sslmode=${mode} ` +
          `(${(err as Error).message}). Give a readable PEM file, or sslrootcert=system for the system's ` +
          'trusted authorities.',
        { field: 'data' },
      );
    }
  }
  return {
    rejectUnauthorized: true,
    ...(ca !== undefined ? { ca } : {}),
    // verify-ca: the chain is verified, the host name is not (libpq's meaning).
    ...(mode === 'verify-ca' ? { checkServerIdentity: () => undefined } : {}),
  };
}
