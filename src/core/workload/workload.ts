/**
 * The workload file: `{"thresholds": [{"features": ["age","sex","race"], "r": 2, "weight": 1}]}`.
 * Parsing checks the shape (zod), resolves feature names against the schema and validates the
 * thresholds; every error names the threshold index and field and says what to do.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { domainSizes, type Schema } from '../data/schema.ts';
import { InputError } from '../errors.ts';
import { queryCount } from './queries.ts';
import type { Threshold, Workload, WorkloadJson } from './types.ts';

const thresholdShape = z.strictObject({
  features: z.array(z.string(), { error: 'features must be a list of feature names' }).min(1),
  r: z.number({ error: 'r must be an integer' }).int({ error: 'r must be an integer' }),
  weight: z.number({ error: 'weight must be a finite number > 0' }).optional(),
});

const workloadShape = z.strictObject({
  thresholds: z.array(thresholdShape, { error: 'thresholds must be a list' }).min(1, {
    error: 'the workload has no thresholds; list at least one',
  }),
});

function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out || '(top level)';
}

function fail(file: string | undefined, field: string, message: string, threshold?: number): never {
  const where: Record<string, string | number> = { field };
  if (file !== undefined) where.file = file;
  if (threshold !== undefined) where.threshold = threshold;
  throw new InputError(`${file ? `${file}: ` : ''}${field}: ${message}`, where);
}

/** Edit distance, for "did you mean" hints on misspelled feature names. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

function unknownFeatureHint(name: string, names: readonly string[]): string {
  const close = names.filter((n) => editDistance(n.toLowerCase(), name.toLowerCase()) <= 2);
  if (close.length > 0) return `did you mean ${close.map((n) => JSON.stringify(n)).join(' or ')}?`;
  const shown = names.slice(0, 5).map((n) => JSON.stringify(n));
  return `valid features include ${shown.join(', ')}${names.length > 5 ? `, … (${names.length} in all)` : ''}`;
}

/** Parses and validates a workload file against a schema. */
export function parseWorkloadJson(text: string, schema: Schema, file?: string): Workload {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new InputError(
      `${file ? `${file}: ` : ''}not valid JSON (${(err as Error).message})`,
      file ? { file } : {},
    );
  }
  const parsed = workloadShape.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const threshold =
      issue.path[0] === 'thresholds' && typeof issue.path[1] === 'number' ? issue.path[1] : undefined;
    fail(file, fieldPath(issue.path), issue.message, threshold);
  }
  const names = schema.columns.map((c) => c.name);
  const indexOf = new Map(names.map((n, i) => [n, i]));
  const thresholds = parsed.data.thresholds.map((t, i): Threshold => {
    const field = `thresholds[${i}].features`;
    if (t.features.length > names.length) {
      fail(file, field, `lists ${t.features.length} features but the schema has only ${names.length}`, i);
    }
    const features = t.features.map((name, j) => {
      const f = indexOf.get(name);
      if (f === undefined) {
        fail(
          file,
          `${field}[${j}]`,
          `unknown feature ${JSON.stringify(name)}; ${unknownFeatureHint(name, names)}`,
          i,
        );
      }
      return f;
    });
    return { features, r: t.r, weight: t.weight ?? 1 };
  });
  const workload: Workload = { thresholds };
  validateWorkload(workload, schema, file);
  return workload;
}

function featureList(t: Threshold, names: readonly string[]): string {
  return t.features.map((f) => names[f] ?? `#${f}`).join(', ');
}

/**
 * Semantic checks of a resolved workload (also for workloads built in code): features are valid
 * and distinct, 1 ≤ r ≤ k, weights finite and > 0, no two thresholds with the same feature set
 * and r, and each threshold's query count is an exact JS number.
 */
export function validateWorkload(w: Workload, schema: Schema, file?: string): void {
  const names = schema.columns.map((c) => c.name);
  const sizes = domainSizes(schema);
  if (w.thresholds.length === 0)
    fail(file, 'thresholds', 'the workload has no thresholds; list at least one');
  const seen = new Map<string, number>();
  w.thresholds.forEach((t, i) => {
    const at = `thresholds[${i}]`;
    const k = t.features.length;
    if (k === 0) fail(file, `${at}.features`, 'lists no features; a threshold needs at least one', i);
    if (k > names.length)
      fail(file, `${at}.features`, `lists ${k} features but the schema has only ${names.length}`, i);
    const position = new Map<number, number>();
    t.features.forEach((f, j) => {
      if (!Number.isInteger(f) || f < 0 || f >= names.length) {
        fail(file, `${at}.features[${j}]`, `feature index ${f} is outside 0..${names.length - 1}`, i);
      }
      const before = position.get(f);
      if (before !== undefined) {
        fail(
          file,
          `${at}.features`,
          `feature ${JSON.stringify(names[f])} is listed twice (positions ${before} and ${j}); ` +
            `a threshold's features must be distinct`,
          i,
        );
      }
      position.set(f, j);
    });
    if (!Number.isInteger(t.r) || t.r < 1 || t.r > k) {
      fail(file, `${at}.r`, `r = ${t.r} is outside 1..${k} (k = ${k} is the number of features listed)`, i);
    }
    if (typeof t.weight !== 'number' || !Number.isFinite(t.weight) || t.weight <= 0) {
      fail(file, `${at}.weight`, `weight must be a finite number > 0, got ${t.weight}`, i);
    }
    const count = queryCount(t, sizes);
    if (count > Number.MAX_SAFE_INTEGER) {
      fail(file, `${at}.features`, `has ${count} queries, more than 2^53; use fewer or smaller features`, i);
    }
    const key = `${[...t.features].sort((a, b) => a - b).join(',')}|${t.r}`;
    const first = seen.get(key);
    if (first !== undefined) {
      fail(
        file,
        at,
        `repeats thresholds[${first}] (same features {${featureList(t, names)}} and r = ${t.r}); ` +
          'remove one of them or merge their weights',
        i,
      );
    }
    seen.set(key, i);
  });
}

/**
 * The JSON object of a workload, features named, weight always present. The names come from the
 * schema, or from the table's header alone (a workload drawn before any domain is known).
 */
export function workloadToObject(w: Workload, schema: Schema | readonly string[]): WorkloadJson {
  const names = 'columns' in schema ? schema.columns.map((c) => c.name) : schema;
  return {
    thresholds: w.thresholds.map((t) => ({
      features: t.features.map((f) => {
        const name = names[f];
        if (name === undefined) throw new RangeError(`feature index ${f} is outside the schema`);
        return name;
      }),
      r: t.r,
      weight: t.weight,
    })),
  };
}

/** The workload file text: one threshold per line, so diffs and reviews stay readable. */
export function workloadToJson(w: Workload, schema: Schema | readonly string[]): string {
  const lines = workloadToObject(w, schema).thresholds.map((t) => `    ${JSON.stringify(t)}`);
  return `{\n  "thresholds": [\n${lines.join(',\n')}\n  ]\n}\n`;
}

/**
 * SHA-256 (hex) of the canonical JSON: no whitespace, keys in the order features, r, weight,
 * thresholds and their features in the workload's order (the order fixes the answer layout).
 */
export function workloadHash(w: Workload, schema: Schema): string {
  return createHash('sha256')
    .update(JSON.stringify(workloadToObject(w, schema)))
    .digest('hex');
}
