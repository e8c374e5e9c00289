/**
 * Locating the first byte that is not valid UTF-8. The fast path (TextDecoder with fatal: true)
 * only says *that* a chunk is bad; this scan, run once on the failing chunk, says *where*, so the
 * error can name the line and column.
 */

/** Allowed range of the second byte after a lead byte (the WHATWG/Unicode table 3-7). */
function secondByteRange(lead: number): [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

function sequenceLength(lead: number): number {
  if (lead <= 0x7f) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * Offset of the first byte at which `bytes[from..]` stops being UTF-8, or -1 when all complete
 * sequences are valid (a sequence cut off by the end of the buffer is not an error here: the
 * next chunk may complete it).
 */
export function firstInvalidUtf8(bytes: Uint8Array, from = 0): number {
  let i = from;
  while (i < bytes.length) {
    const lead = bytes[i];
    const len = sequenceLength(lead);
    if (len === 0) return i;
    if (len === 1) {
      i++;
      continue;
    }
    const [lo, hi] = secondByteRange(lead);
    for (let k = 1; k < len; k++) {
      if (i + k >= bytes.length) return -1;
      const b = bytes[i + k];
      const ok = k === 1 ? b >= lo && b <= hi : b >= 0x80 && b <= 0xbf;
      if (!ok) return i;
    }
    i += len;
  }
  return -1;
}

/** Number of leading continuation bytes (10xxxxxx), at most 3: the tail of a sequence cut by a chunk edge. */
export function leadingContinuationBytes(bytes: Uint8Array): number {
  let n = 0;
  while (n < 3 && n < bytes.length && (bytes[n] & 0xc0) === 0x80) n++;
  return n;
}
