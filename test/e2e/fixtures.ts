/** Small generated inputs for the e2e specs (written to temp folders, never committed). */

const COLORS = ['red', 'green', 'blue'];
const SIZES = ['S', 'M', 'L', 'XL'];

/** 60 valid rows: color (3), size (4), age 18..77. */
export function peopleCsv(): string {
  const rows = Array.from({ length: 60 }, (_, i) => `${COLORS[i % 3]},${SIZES[i % 4]},${18 + i}`);
  return `color,size,age\n${rows.join('\n')}\n`;
}

/**
 * Ten categorical columns a..j with 8 values each, `rows` rows of seeded values: quick to load,
 * but every 3-subset as a 2-of-3 threshold gives 120 thresholds and over 1,000 queries, so a run
 * of T = 1,000 rounds keeps the engine busy for a minute or more even on an idle machine, and
 * faults can be injected mid-run whatever the machine's speed.
 */
export const WIDE_COLUMNS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'] as const;

export function wideCsv(rows = 2000): string {
  let x = 7;
  const next = (m: number) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % m;
  };
  const lines = [WIDE_COLUMNS.join(',')];
  for (let i = 0; i < rows; i++) lines.push(WIDE_COLUMNS.map((c) => `${c}${next(8)}`).join(','));
  return `${lines.join('\n')}\n`;
}

/**
 * Deterministic bytes that are not text: a ZIP signature (what an .xlsx file starts with), then
 * seeded noise. (Not a file that starts with a byte like 0x89: the loader misplaces an invalid
 * byte at the very start of a file, a core bug reported separately.)
 */
export function garbage(bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  let x = 42;
  for (let i = 0; i < bytes; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    out[i] = x >>> 16;
  }
  Buffer.from('PK\x03\x04\x14\x00\x06\x00', 'latin1').copy(out);
  return out;
}
