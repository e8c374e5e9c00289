/**
 * Raw random 32-bit words for the noise samplers: either the operating system's CSPRNG
 * (node:crypto) or, for tests and benchmarks only, a deterministic ChaCha20 keystream keyed by a
 * seed. Both are read through one 64 KiB buffer so that per-draw cost is an array read, not a
 * syscall. Nothing here uses JavaScript's built-in Math PRNG.
 */
import { createCipheriv, createHash, randomFillSync } from 'node:crypto';

/** A stream of independent uniform 32-bit unsigned integers. */
export interface RandomWords {
  next(): number;
}

const BUFFER_BYTES = 64 * 1024;

/**
 * Hands out the words of a byte buffer that `refill` overwrites whenever it has been used up.
 * Words are read in the platform's byte order; every platform Node supports for this app
 * (x64, arm64) is little-endian, which keeps seeded streams reproducible across machines.
 */
class BufferedWords implements RandomWords {
  private readonly bytes = new Uint8Array(BUFFER_BYTES);
  private readonly words = new Uint32Array(this.bytes.buffer);
  private position = this.words.length;

  constructor(private readonly refill: (into: Uint8Array) => void) {}

  next(): number {
    if (this.position === this.words.length) {
      this.refill(this.bytes);
      this.position = 0;
    }
    return this.words[this.position++];
  }
}

/** Words from node:crypto's CSPRNG (the OS entropy pool via OpenSSL). */
export function cryptoWords(): RandomWords {
  return new BufferedWords((into) => randomFillSync(into));
}

/**
 * Canonical text of a seed: numbers are written in decimal so that `42` and `'42'` give the same
 * stream (the CLI reads seeds as text, the engine protocol as numbers).
 */
export function canonicalSeed(seed: number | string): string {
  if (typeof seed === 'number') {
    if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number, got ${seed}`);
    return String(seed);
  }
  if (typeof seed !== 'string' || seed.length === 0) {
    throw new RangeError('seed must be a non-empty string or a finite number');
  }
  return seed;
}

/**
 * Deterministic words: the ChaCha20 keystream (RFC 8439 block function, zero nonce, counter from
 * 0) under the key SHA-256("rap-studio/insecure-seed/v1\0" + seed). Statistically
 * indistinguishable from uniform, but anyone who knows the seed knows every noise value, so a run
 * that uses it provides NO privacy and is labelled `insecure-seed`.
 */
export function seededWords(seed: number | string): RandomWords {
  const key = createHash('sha256')
    .update('rap-studio/insecure-seed/v1\0')
    .update(canonicalSeed(seed))
    .digest();
  const cipher = createCipheriv('chacha20', key, Buffer.alloc(16));
  const zeros = new Uint8Array(BUFFER_BYTES);
  return new BufferedWords((into) => {
    // Encrypting zeros yields the keystream itself; the cipher keeps its counter between calls.
    into.set(cipher.update(zeros));
  });
}
