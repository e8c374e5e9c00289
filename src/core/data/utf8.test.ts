import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstInvalidUtf8, leadingContinuationBytes } from './utf8.ts';

const decodes = (bytes: Uint8Array, stream: boolean): boolean => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream });
    return true;
  } catch {
    return false;
  }
};

/**
 * Brute force with the platform decoder: k = the shortest prefix that cannot begin valid UTF-8;
 * the bad sequence starts after the longest prefix before k that decodes completely.
 */
function bruteFirstInvalid(bytes: Uint8Array): number {
  for (let k = 1; k <= bytes.length; k++) {
    if (decodes(bytes.subarray(0, k), true)) continue;
    for (let j = k - 1; j >= 0; j--) if (decodes(bytes.subarray(0, j), false)) return j;
  }
  return -1;
}

describe('firstInvalidUtf8', () => {
  it('finds nothing in valid text', () => {
    const bytes = new TextEncoder().encode('plain, ünïcødé, 日本, 😀\n');
    expect(firstInvalidUtf8(bytes)).toBe(-1);
  });

  it.each([
    [[0x61, 0xe9, 0x62], 1], // Latin-1 é
    [[0xc0, 0x80], 0], // overlong
    [[0xed, 0xa0, 0x80], 0], // surrogate
    [[0xf4, 0x90, 0x80, 0x80], 0], // above U+10FFFF
    [[0x61, 0x80], 1], // stray continuation
    [[0xe2, 0x82], -1], // cut off at the end: maybe completed by the next chunk
  ])('locates %j at %i', (bytes, at) => {
    expect(firstInvalidUtf8(new Uint8Array(bytes))).toBe(at);
  });

  it('agrees with the platform decoder on whether bytes are valid, and where they stop', () => {
    const byte = fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0x80, max: 0xff }));
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 24 }), (xs) => {
        const bytes = new Uint8Array(xs);
        expect(firstInvalidUtf8(bytes)).toBe(bruteFirstInvalid(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('counts leading continuation bytes', () => {
    expect(leadingContinuationBytes(new Uint8Array([0x80, 0xbf, 0x61]))).toBe(2);
    expect(leadingContinuationBytes(new Uint8Array([0x61, 0x80]))).toBe(0);
    expect(leadingContinuationBytes(new Uint8Array([0x80, 0x80, 0x80, 0x80]))).toBe(3);
  });
});
