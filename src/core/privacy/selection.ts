/**
 * Private selection: report-noisy-max with Gumbel noise, its one-shot top-K form (OSAS) and the
 * iterative peeling form (AS).
 *
 * Sensitivity: neighbouring datasets differ in one record (replace-one), n is public. A query's
 * score is w · |true answer − synthetic answer| with answers normalized by n and the synthetic
 * data fixed by earlier (private) rounds, so one record moves a score by at most Δ = w_max / n.
 *
 * Privacy: argmax of score + Gumbel(scale) is exactly the exponential mechanism with
 * ε₀ = 2Δ / scale, which is ε₀²/8-zCDP (Cesar & Rogers 2021). The one-shot top-K of
 * score + Gumbel(scale) has the same distribution as K rounds of peeling with fresh Gumbel noise
 * (Durfee & Rogers 2019), i.e. K exponential mechanisms: K·ε₀²/8-zCDP. Setting that to ρ gives
 * ε₀ = √(8ρ/K) and scale = 2Δ/ε₀ = w_max · √(K / (2ρ)) / n.
 */
import type { NoiseSource } from './noise.ts';

function assertPositiveFinite(value: number, what: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${what} must be a finite number > 0, got ${String(value)}`);
  }
}

function assertScale(scale: number): void {
  if (typeof scale !== 'number' || !Number.isFinite(scale) || scale < 0) {
    throw new RangeError(`Gumbel scale must be a finite number >= 0, got ${String(scale)}`);
  }
}

function assertCount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${what} must be an integer >= 1, got ${String(value)}`);
  }
}

function assertScore(score: number, index: number): void {
  if (!Number.isFinite(score)) throw new RangeError(`score of candidate ${index} is not finite: ${score}`);
}

/** Gumbel scale for choosing K queries at total ρ (one-shot or iterative; see the file comment). */
export function gumbelScale(rho: number, K: number, n: number, maxWeight = 1): number {
  assertPositiveFinite(rho, 'rho');
  assertCount(K, 'K (queries to select)');
  assertCount(n, 'n (number of records)');
  assertPositiveFinite(maxWeight, 'maxWeight');
  return (maxWeight * Math.sqrt(K / (2 * rho))) / n;
}

/** Importance weights divided by their maximum, so the largest is 1 and gumbelScale's default holds. */
export function normalizeWeights(weights: ArrayLike<number>): Float64Array {
  if (weights.length === 0) throw new RangeError('weights must not be empty');
  let max = 0;
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i];
    if (typeof w !== 'number' || !Number.isFinite(w) || w <= 0) {
      throw new RangeError(`weight ${i} must be a finite number > 0, got ${String(w)}`);
    }
    if (w > max) max = w;
  }
  const out = new Float64Array(weights.length);
  for (let i = 0; i < weights.length; i++) out[i] = weights[i] / max;
  return out;
}

/** Index of the largest score + scale·Gumbel; scale 0 is the exact argmax, ties to the lower index. */
export function reportNoisyMax(scores: ArrayLike<number>, scale: number, noise: NoiseSource): number {
  const top = new NoisyTopK(1, scale, noise);
  top.offer(scores, 0);
  return top.result()[0];
}

const MAX_INDEX = Number.MAX_SAFE_INTEGER;

/**
 * Streaming one-shot noisy top-K: each offered score gets fresh Gumbel noise, and only the K best
 * noisy scores are kept in a binary min-heap (root = worst kept), so 10^8 candidates offered in
 * chunks need O(K) memory. Chunks must not overlap in index. Order: larger noisy score first,
 * then lower index.
 */
export class NoisyTopK {
  private readonly keys: Float64Array;
  private readonly ids: Float64Array;
  private size = 0;
  private offered = 0;

  constructor(
    private readonly k: number,
    private readonly scale: number,
    private readonly noise: NoiseSource,
  ) {
    assertCount(k, 'K (candidates to keep)');
    assertScale(scale);
    this.keys = new Float64Array(k);
    this.ids = new Float64Array(k);
  }

  /** Scores of candidates baseIndex, baseIndex + 1, …; noise is drawn for every one of them. */
  offer(scores: ArrayLike<number>, baseIndex: number): void {
    if (!Number.isSafeInteger(baseIndex) || baseIndex < 0 || baseIndex + scores.length > MAX_INDEX) {
      throw new RangeError(`baseIndex must be an integer in [0, 2^53 - length], got ${baseIndex}`);
    }
    const scale = this.scale;
    const noise = this.noise;
    for (let i = 0; i < scores.length; i++) {
      const score = scores[i];
      assertScore(score, baseIndex + i);
      const key = scale === 0 ? score : score + scale * noise.gumbel();
      this.push(key, baseIndex + i);
    }
    this.offered += scores.length;
  }

  /** Indices of the K largest noisy scores, best first. */
  result(): number[] {
    if (this.offered < this.k) {
      throw new RangeError(`asked for the top ${this.k} of only ${this.offered} candidates`);
    }
    const order = Array.from({ length: this.size }, (_, slot) => slot);
    order.sort((a, b) => this.keys[b] - this.keys[a] || this.ids[a] - this.ids[b]);
    return order.map((slot) => this.ids[slot]);
  }

  private push(key: number, id: number): void {
    if (this.size < this.k) {
      this.keys[this.size] = key;
      this.ids[this.size] = id;
      this.siftUp(this.size++);
    } else if (this.worse(0, key, id)) {
      this.keys[0] = key;
      this.ids[0] = id;
      this.siftDown(0);
    }
  }

  /** Whether the entry in `slot` ranks below (key, id). */
  private worse(slot: number, key: number, id: number): boolean {
    const slotKey = this.keys[slot];
    return slotKey < key || (slotKey === key && this.ids[slot] > id);
  }

  private siftUp(slot: number): void {
    while (slot > 0) {
      const parent = (slot - 1) >> 1;
      if (!this.worse(slot, this.keys[parent], this.ids[parent])) return;
      this.swap(slot, parent);
      slot = parent;
    }
  }

  private siftDown(slot: number): void {
    for (;;) {
      const left = 2 * slot + 1;
      if (left >= this.size) return;
      const right = left + 1;
      const child = right < this.size && this.worse(right, this.keys[left], this.ids[left]) ? right : left;
      if (!this.worse(child, this.keys[slot], this.ids[slot])) return;
      this.swap(slot, child);
      slot = child;
    }
  }

  private swap(a: number, b: number): void {
    const key = this.keys[a];
    const id = this.ids[a];
    this.keys[a] = this.keys[b];
    this.ids[a] = this.ids[b];
    this.keys[b] = key;
    this.ids[b] = id;
  }
}

/**
 * The iterative form (AS): K rounds of report-noisy-max with fresh noise, each over the
 * candidates not yet chosen. With the same scale it has the same output distribution and the same
 * privacy cost as {@link NoisyTopK} (Durfee & Rogers 2019), at K times the noise draws; it is kept
 * for comparison and tests.
 */
export function iterativeTopK(
  scores: Float64Array,
  K: number,
  scalePerStep: number,
  noise: NoiseSource,
): number[] {
  assertCount(K, 'K (candidates to select)');
  assertScale(scalePerStep);
  if (K > scores.length) throw new RangeError(`asked for the top ${K} of only ${scores.length} candidates`);
  for (let i = 0; i < scores.length; i++) assertScore(scores[i], i);
  const chosen = new Uint8Array(scores.length);
  const picks: number[] = [];
  for (let round = 0; round < K; round++) {
    let best = -1;
    let bestKey = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < scores.length; i++) {
      if (chosen[i]) continue;
      const key = scalePerStep === 0 ? scores[i] : scores[i] + scalePerStep * noise.gumbel();
      if (best < 0 || key > bestKey) {
        best = i;
        bestKey = key;
      }
    }
    chosen[best] = 1;
    picks.push(best);
  }
  return picks;
}
