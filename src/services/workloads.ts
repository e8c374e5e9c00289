/**
 * Workloads as the Workload step builds them: lists of named thresholds, resolved against the
 * dataset's current schema whenever they are used (so a schema edit cannot leave a stale index).
 */
import type { Schema } from '../core/data/schema.ts';
import { domainSizes } from '../core/data/schema.ts';
import { InputError } from '../core/errors.ts';
import { defaultWorkloadFor } from '../core/workload/default.ts';
import { futureWorkload } from '../core/workload/future.ts';
import { binomial, subsetsOfSize } from '../core/workload/inclusion-exclusion.ts';
import { queryCount, totalQueryCount } from '../core/workload/queries.ts';
import { randomWorkload } from '../core/workload/random.ts';
import type { Workload } from '../core/workload/types.ts';
import { parseWorkloadJson, workloadToObject } from '../core/workload/workload.ts';
import type { FeatureDistributionName, ThresholdInput, WorkloadRole, WorkloadView } from '../shared/api.ts';

/** More thresholds than this from one "add all subsets" is almost surely a mistake. */
export const MAX_GENERATED_THRESHOLDS = 5000;

/** Resolves and validates named thresholds (the workload file's rules and messages). */
export function resolveWorkload(
  thresholds: readonly ThresholdInput[],
  schema: Schema,
  file?: string,
): Workload {
  return parseWorkloadJson(JSON.stringify({ thresholds }), schema, file);
}

export function workloadView(role: WorkloadRole, w: Workload | null, schema: Schema): WorkloadView {
  if (!w) return { role, thresholds: [], totalQueries: '0' };
  const sizes = domainSizes(schema);
  const named = workloadToObject(w, schema).thresholds;
  return {
    role,
    thresholds: w.thresholds.map((t, i) => ({
      features: named[i].features,
      r: t.r,
      weight: t.weight,
      k: t.features.length,
      queries: queryCount(t, sizes),
    })),
    totalQueries: totalQueryCount(w, sizes).toString(),
  };
}

/** Named thresholds back from a resolved workload. */
export function namedThresholds(w: Workload, schema: Schema): ThresholdInput[] {
  return workloadToObject(w, schema).thresholds.map((t) => ({
    features: t.features,
    r: t.r,
    weight: t.weight ?? 1,
  }));
}

function knownFeatures(schema: Schema, features: readonly string[]): void {
  const names = new Set(schema.columns.map((c) => c.name));
  const unknown = features.find((f) => !names.has(f));
  if (unknown !== undefined)
    throw new InputError(`Unknown feature "${unknown}": pick features of the schema.`);
  if (new Set(features).size !== features.length) throw new InputError('A feature is chosen twice.');
}

/** Every k-subset of the chosen features as an r-of-k threshold. */
export function allSubsets(
  schema: Schema,
  o: { features: readonly string[]; k: number; r: number; weight: number },
): ThresholdInput[] {
  knownFeatures(schema, o.features);
  const d = o.features.length;
  if (!(Number.isInteger(o.k) && o.k >= 1 && o.k <= d)) {
    throw new InputError(`k = ${o.k} must be between 1 and the ${d} chosen features.`);
  }
  if (!(Number.isInteger(o.r) && o.r >= 1 && o.r <= o.k)) {
    throw new InputError(`r = ${o.r} must be between 1 and k = ${o.k}.`);
  }
  const count = binomial(d, o.k);
  if (count > MAX_GENERATED_THRESHOLDS) {
    throw new InputError(
      `${d} features give ${count.toLocaleString('en-US')} subsets of ${o.k}, more than ${MAX_GENERATED_THRESHOLDS.toLocaleString('en-US')}: choose fewer features.`,
    );
  }
  return subsetsOfSize(d, o.k).map((s) => ({
    features: s.map((i) => o.features[i]),
    r: o.r,
    weight: o.weight,
  }));
}

/**
 * The default workload for no analysis in mind (core/workload/default.ts): every 2-way marginal
 * of the schema's columns, plus every 3-way marginal with `target`; weight 1 each.
 */
export function defaultThresholds(schema: Schema, target?: string): ThresholdInput[] {
  const names = schema.columns.map((c) => c.name);
  const w = defaultWorkloadFor(names, target);
  if (w.thresholds.length > MAX_GENERATED_THRESHOLDS) {
    throw new InputError(
      `${names.length} columns give ${w.thresholds.length.toLocaleString('en-US')} default thresholds, more than ${MAX_GENERATED_THRESHOLDS.toLocaleString('en-US')}.`,
    );
  }
  return w.thresholds.map((t) => ({ features: t.features.map((f) => names[f]), r: t.r, weight: t.weight }));
}

/** N random distinct thresholds over the chosen features (all when none are chosen). */
export function randomThresholds(
  schema: Schema,
  o: {
    features?: readonly string[];
    k: number;
    r: number;
    size: number;
    dist: FeatureDistributionName;
    seed: number;
    weight: number;
  },
): ThresholdInput[] {
  const features = o.features && o.features.length > 0 ? o.features : schema.columns.map((c) => c.name);
  knownFeatures(schema, features);
  if (o.size > MAX_GENERATED_THRESHOLDS) {
    throw new InputError(
      `At most ${MAX_GENERATED_THRESHOLDS.toLocaleString('en-US')} thresholds at once, got ${o.size}.`,
    );
  }
  const w = randomWorkload({
    numFeatures: features.length,
    k: o.k,
    r: o.r,
    size: o.size,
    dist: o.dist,
    seed: o.seed,
    weight: o.weight,
  });
  return w.thresholds.map((t) => ({
    features: t.features.map((f) => features[f]),
    r: t.r,
    weight: t.weight,
  }));
}

/**
 * Future (evaluation) thresholds: drawn from the main workload's feature frequencies (the
 * history) moved by the drift γ — the CLI's `workload random --drift γ --from main.json`.
 */
export function driftedThresholds(
  schema: Schema,
  history: Workload,
  o: { k: number; r: number; size: number; drift: number; seed: number; weight: number },
): ThresholdInput[] {
  if (history.thresholds.length === 0) {
    throw new InputError('The workload has no thresholds yet: a drifted evaluation workload starts from it.');
  }
  if (o.size > MAX_GENERATED_THRESHOLDS) {
    throw new InputError(
      `At most ${MAX_GENERATED_THRESHOLDS.toLocaleString('en-US')} thresholds at once, got ${o.size}.`,
    );
  }
  const w = futureWorkload({
    numFeatures: schema.columns.length,
    base: { kind: 'workload', workload: history },
    drift: o.drift,
    k: o.k,
    r: o.r,
    size: o.size,
    seed: o.seed,
    weight: o.weight,
  });
  return namedThresholds(w, schema);
}
