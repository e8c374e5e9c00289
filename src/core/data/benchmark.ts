/**
 * The benchmark format of DP papers (e.g. the ADULT files of private-pgm and RAP): an
 * integer-coded CSV plus a domain JSON {"column": size, …} meaning values 0..size−1. It maps to
 * a declared schema of categorical columns whose categories are '0'…'size−1', so decoding gives
 * the integer codes back. Column order is the domain file's; CSV columns it omits are ignored.
 */
import { z } from 'zod';
import { InputError } from '../errors.ts';
import { readTextFile } from '../input/files.ts';
import type { LoadOptions, LoadResult } from './load.ts';
import { loadCsv } from './load.ts';
import { MAX_DOMAIN_SIZE, SCHEMA_VERSION, type Schema } from './schema.ts';

const domainJson = z
  .record(
    z.string().min(1),
    z
      .int('must be an integer')
      .positive('must be a positive integer')
      .max(
        MAX_DOMAIN_SIZE,
        `must be at most ${MAX_DOMAIN_SIZE.toLocaleString('en-US')} (RAP Studio's limit on the categories of one column)`,
      ),
  )
  .refine((d) => Object.keys(d).length >= 2, 'needs at least two columns');

/** Parses a domain file's text into a declared schema. */
export function parseDomainJson(text: string, file: string): Schema {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new InputError(`${file}: not valid JSON (${(err as Error).message}).`, { file });
  }
  const parsed = domainJson.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (i) => `${i.path.length ? `"${i.path.join('.')}"` : '(top level)'}: ${i.message}`,
    );
    throw new InputError(
      `${file}: invalid domain file (expected {"column": size, …}): ${problems.slice(0, 5).join('; ')}.`,
      { file },
    );
  }
  return schemaFromDomain(parsed.data);
}

export function schemaFromDomain(domain: Readonly<Record<string, number>>): Schema {
  const columns = Object.entries(domain).map(([name, size]) => ({
    name,
    kind: 'categorical' as const,
    categories: Array.from({ length: size }, (_, v) => String(v)),
    missing: false,
  }));
  return { version: SCHEMA_VERSION, origin: 'declared', columns };
}

export async function loadBenchmark(
  csvPath: string,
  domainPath: string,
  opts: Omit<LoadOptions, 'schema'> = {},
): Promise<LoadResult> {
  const text = await readTextFile(domainPath, 'domain file');
  return loadCsv(csvPath, { ...opts, schema: parseDomainJson(text, domainPath) });
}
