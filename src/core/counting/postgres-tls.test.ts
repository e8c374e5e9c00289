/**
 * TLS and the pinned session settings of a PostgreSQL source's connection: the client's
 * configuration built from URLs and libpq's environment (no TLS server needed), and, against the
 * test server (RAP_TEST_POSTGRES, which has no TLS), that sslmode=require really asks for TLS.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../data/testing.ts';
import { InputError } from '../errors.ts';
import {
  clientConfig,
  PINNED_SETTINGS,
  parsePostgresSource,
  tableRows,
  withPassword,
  withPostgres,
} from './postgres.ts';
import { parsePostgresQuerySource } from './postgres-query.ts';

const URL_ = process.env.RAP_TEST_POSTGRES;
const base = 'postgres://curator@db.example:5433/hospital?table=visits';
/** The client's config for `url` with `env` as libpq's environment (nothing else read). */
const config = (url: string, env: NodeJS.ProcessEnv = {}) => clientConfig(parsePostgresSource(url), env);

function refusal(f: () => unknown): Error {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return err as Error;
  }
  throw new Error('expected a refusal');
}

describe("a PostgreSQL source's TLS (libpq's sslmode)", () => {
  it('no sslmode in the URL or PGSSLMODE: no TLS; disable: none', () => {
    expect(config(base).ssl).toBe(false);
    expect(config(`${base}&sslmode=disable`, { PGSSLMODE: 'require' }).ssl).toBe(false);
  });

  it('sslmode=require: TLS without verifying the certificate (libpq), from the URL or PGSSLMODE', () => {
    expect(config(`${base}&sslmode=require`).ssl).toEqual({ rejectUnauthorized: false });
    expect(config(base, { PGSSLMODE: 'require' }).ssl).toEqual({ rejectUnauthorized: false });
    // The URL's word wins over the environment's.
    expect(config(`${base}&sslmode=require`, { PGSSLMODE: 'disable' }).ssl).toEqual({
      rejectUnauthorized: false,
    });
  });

  it('verify-full: the certificate and the host verified against sslrootcert (read as a file)', () => {
    const pem = tempDir().file('root.crt', '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const ssl = config(`${base}&sslmode=verify-full&sslrootcert=${encodeURIComponent(pem)}`).ssl;
    expect(ssl).toEqual({
      rejectUnauthorized: true,
      ca: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    });
    // PGSSLROOTCERT where the URL names none.
    expect(config(`${base}&sslmode=verify-full`, { PGSSLROOTCERT: pem }).ssl).toMatchObject({
      rejectUnauthorized: true,
      ca: expect.stringContaining('MIIB'),
    });
    // sslrootcert=system: the system's trusted authorities (node's), still verified.
    expect(config(`${base}&sslmode=verify-full&sslrootcert=system`).ssl).toEqual({
      rejectUnauthorized: true,
    });
  });

  it('verify-ca: the chain verified, the host name not', () => {
    const ssl = config(`${base}&sslmode=verify-ca&sslrootcert=system`).ssl as {
      rejectUnauthorized: boolean;
      checkServerIdentity: (host: string, cert: unknown) => Error | undefined;
    };
    expect(ssl.rejectUnauthorized).toBe(true);
    expect(ssl.checkServerIdentity('other.example', {})).toBeUndefined();
  });

  it('an unreadable sslrootcert is refused naming the file', () => {
    const missing = join(tempDir().path, 'nowhere.crt');
    const err = refusal(() => config(`${base}&sslmode=verify-full&sslrootcert=${missing}`));
    expect(err.message).toContain(missing);
    expect(err.message).toContain('sslrootcert');
  });

  it.each([
    'prefer',
    'allow',
  ])('sslmode=%s (a fallback to cleartext) is refused naming the choices', (mode) => {
    const err = refusal(() => parsePostgresSource(`${base}&sslmode=${mode}`));
    expect(err.message).toContain(`sslmode=${mode}`);
    expect(err.message).toMatch(/require.*verify-ca.*verify-full.*disable/);
    // PGSSLMODE=prefer likewise, at connect.
    const env = refusal(() => config(base, { PGSSLMODE: mode }));
    expect(env.message).toContain('PGSSLMODE');
  });

  it('an unknown sslmode, and any other URL parameter, is refused naming it', () => {
    expect(refusal(() => parsePostgresSource(`${base}&sslmode=maybe`)).message).toMatch(
      /sslmode "maybe" is not one of disable, require, verify-ca, verify-full/,
    );
    const err = refusal(() => parsePostgresSource(`${base}&application_name=x`));
    expect(err.message).toContain('"application_name"');
    expect(refusal(() => parsePostgresSource(`${base}&table=other`)).message).toContain('"table" twice');
  });

  it('a Unix socket never uses TLS (libpq ignores sslmode there)', () => {
    const src = parsePostgresSource(
      `postgres://%2Fvar%2Frun%2Fpostgresql/hospital?table=visits&sslmode=require`,
    );
    expect(src.host).toBe('/var/run/postgresql');
    expect(clientConfig(src, {}).ssl).toBe(false);
  });

  it('a query source (--sql) takes sslmode too; a table or another parameter is refused', () => {
    const src = parsePostgresQuerySource('postgres://db/hospital?sslmode=require', 'SELECT 1 AS x');
    expect(clientConfig(src, {}).ssl).toEqual({ rejectUnauthorized: false });
    expect(src.location).toBe('postgres://db/hospital (SQL query)');
    expect(
      refusal(() => parsePostgresQuerySource('postgres://db/hospital?table=t', 'SELECT 1')).message,
    ).toContain('leave out "?table=');
    expect(
      refusal(() => parsePostgresQuerySource('postgres://db/hospital?connect_timeout=3', 'SELECT 1')).message,
    ).toContain('"connect_timeout"');
  });

  it('the TLS parameters stay out of the public location and display, and no password is shown', () => {
    const src = withPassword(parsePostgresSource(`${base}&sslmode=require`), 'pw-in-memory');
    expect(src.location).toBe('postgres://db.example:5433/hospital?table=visits');
    expect(src.display).toBe('postgres://curator@db.example:5433/hospital?table=visits');
    expect(clientConfig(src, {}).password).toBe('pw-in-memory');
    expect(JSON.stringify(src)).not.toContain('pw-in-memory');
  });
});

describe('the session settings pinned at connect', () => {
  it('TimeZone, IntervalStyle and extra_float_digits follow the curator PGOPTIONS (so they win)', () => {
    expect(config(base).options).toBe(PINNED_SETTINGS);
    expect(config(base, { PGOPTIONS: '-c search_path=private' }).options).toBe(
      `-c search_path=private ${PINNED_SETTINGS}`,
    );
    expect(PINNED_SETTINGS).toContain('-c TimeZone=UTC');
  });
});

describe.skipIf(!URL_)('TLS against the test server (RAP_TEST_POSTGRES, no TLS there)', () => {
  it('sslmode=require asks for TLS: a server without it is refused, not used in cleartext', async () => {
    const src = parsePostgresSource(`${URL_}?table=pg_class&sslmode=require`);
    await expect(withPostgres(src, (c) => tableRows(c, src))).rejects.toThrow(/cannot connect.*SSL/);
    // sslmode=disable connects as before.
    const plain = parsePostgresSource(`${URL_}?table=pg_class&sslmode=disable`);
    expect(await withPostgres(plain, (c) => tableRows(c, plain))).toBeGreaterThan(0);
  });
});
