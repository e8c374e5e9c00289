/**
 * r-of-k thresholds. A threshold (S, r) with |S| = k asks, for every target y in the product of
 * the k features' domains, "what fraction of rows match at least r of the k values y".
 * r = k is a k-way marginal, r = 1 a disjunction.
 */

/** A threshold resolved against a schema: features are column indices (distinct). */
export interface Threshold {
  readonly features: readonly number[];
  readonly r: number;
  /** The curator's importance weight, > 0 and finite (default 1). */
  readonly weight: number;
}

export interface Workload {
  readonly thresholds: readonly Threshold[];
}

/** The JSON file format, features named. */
export interface WorkloadJson {
  thresholds: { features: string[]; r: number; weight?: number }[];
}
