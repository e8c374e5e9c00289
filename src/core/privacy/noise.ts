/**
 * The only source of privacy noise in RAP Studio. Every sample is derived from 32-bit words of a
 * cryptographically secure generator (node:crypto), never from JavaScript's built-in Math PRNG.
 *
 * Sampling methods (see docs/privacy.md for why they do not leak through floating point):
 * - uniform(): k / 2^53 with k a uniform 53-bit integer, k = 0 rejected, so the value lies on the
 *   2^-53 grid in (0, 1) and is never 0 or 1.
 * - A "fine" uniform used internally where a sampler's tail depends on values near 0: when the
 *   53-bit draw is below 2^40 (probability 2^-13) more bits are appended, so every value keeps at
 *   least 40 significant bits and tiny values have no gaps (no holes in the noise tails).
 * - normal(): Box–Muller, R = sqrt(−2 ln U₁) with U₁ fine, θ = 2π U₂; both R cos θ and R sin θ
 *   are used (they are independent standard normals).
 * - gumbel(): −ln(E) with E = −ln(1 − V) = −log1p(−V) ~ Exp(1) and V fine, so the upper tail
 *   (the one that decides a noisy max) is resolved to about 745 and has no gaps.
 * - exponential(): −ln(V) with V fine: Exp(1) with its upper tail resolved to about 745.
 */
import { cryptoWords, type RandomWords, seededWords } from './random-words.ts';

/** 'insecure-seed' runs are reproducible and provide no privacy; reports and the ledger say so. */
export type SeedMode = 'secure' | 'insecure-seed';

export interface NoiseSource {
  readonly mode: SeedMode;
  /** Uniform on the 2^-53 grid in (0, 1); never 0 or 1. */
  uniform(): number;
  /** Standard normal N(0, 1). */
  normal(): number;
  /** Standard Gumbel(0, 1): CDF exp(−exp(−x)). */
  gumbel(): number;
  /** Standard exponential Exp(1) (the Laplace of the sparse vector is a difference of two). */
  exponential(): number;
  /** out[i] = sigma · N(0, 1) for every i. Not for releasing values: use gaussianMechanism. */
  fillNormal(out: Float64Array, sigma: number): void;
}

const TWO_POW_32 = 2 ** 32;
const TWO_POW_M53 = 2 ** -53;
const FINE_THRESHOLD = 2 ** 40;
/** Refinement depth after which (k + u)·2^-53·… would underflow; reached with probability 2^-700. */
const FINE_MAX_DEPTH = 18;
const TWO_PI = 2 * Math.PI;

class WordNoise implements NoiseSource {
  /** The second Box–Muller normal, valid while hasSpare is true. */
  private spareNormal = 0;
  private hasSpare = false;

  constructor(
    private readonly words: RandomWords,
    readonly mode: SeedMode,
  ) {}

  /** Uniform integer in [0, 2^53): the top 21 bits of one word and all 32 of the next. */
  private bits53(): number {
    const high = this.words.next() >>> 11;
    return high * TWO_POW_32 + this.words.next();
  }

  uniform(): number {
    for (;;) {
      const k = this.bits53();
      if (k !== 0) return k * TWO_POW_M53;
    }
  }

  /**
   * Uniform in (0, 1) with at least 40 significant bits at every magnitude: u = (k + u′)·2^-53
   * where u′ is again fine whenever k < 2^40. Below 1 − 2^-53 it never rounds up to 1 because
   * k + u′ < 2^40 + 1 there.
   */
  private fineUniform(depth = 0): number {
    const k = this.bits53();
    if (k >= FINE_THRESHOLD) return k * TWO_POW_M53;
    if (depth === FINE_MAX_DEPTH) return (k + 0.5) * TWO_POW_M53;
    return (k + this.fineUniform(depth + 1)) * TWO_POW_M53;
  }

  normal(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spareNormal;
    }
    const radius = Math.sqrt(-2 * Math.log(this.fineUniform()));
    const angle = TWO_PI * this.uniform();
    this.spareNormal = radius * Math.sin(angle);
    this.hasSpare = true;
    return radius * Math.cos(angle);
  }

  gumbel(): number {
    return -Math.log(-Math.log1p(-this.fineUniform()));
  }

  exponential(): number {
    return -Math.log(this.fineUniform());
  }

  fillNormal(out: Float64Array, sigma: number): void {
    if (!Number.isFinite(sigma) || sigma < 0) {
      throw new RangeError(`sigma must be a finite number >= 0, got ${sigma}`);
    }
    for (let i = 0; i < out.length; i++) out[i] = sigma * this.normal();
  }
}

/**
 * A NoiseSource on caller-supplied words, for tests that feed crafted words. Nothing vouches for
 * such words, so the source is always labelled 'insecure-seed'.
 */
export function noiseFromWords(words: RandomWords): NoiseSource {
  return new WordNoise(words, 'insecure-seed');
}

/** Noise for real releases: node:crypto's CSPRNG. */
export function secureNoise(): NoiseSource {
  return new WordNoise(cryptoWords(), 'secure');
}

/**
 * Reproducible noise for tests and benchmarks ONLY (ChaCha20 keystream keyed by the seed). Its
 * mode is 'insecure-seed'; any run that uses it must be marked `insecure-seed` in its report and
 * in the ledger, because whoever knows the seed can subtract the noise.
 */
export function seededNoise(seed: number | string): NoiseSource {
  return new WordNoise(seededWords(seed), 'insecure-seed');
}
