/** Small generated inputs for the e2e specs (written to temp folders, never committed). */

const COLORS = ['red', 'green', 'blue'];
const SIZES = ['S', 'M', 'L', 'XL'];

/** 60 valid rows: color (3), size (4), age 18..77. */
export function peopleCsv(): string {
  const rows = Array.from({ length: 60 }, (_, i) => `${COLORS[i % 3]},${SIZES[i % 4]},${18 + i}`);
  return `color,size,age\n${rows.join('\n')}\n`;
}

/**
 * Six categorical columns a..f with 8 values each, `rows` rows of seeded values: small to load,
 * but with 20 three-feature thresholds it gives the engine rounds enough to stay busy for a
 * while, so faults can be injected mid-run.
 */
export const WIDE_COLUMNS = ['a', 'b', 'c', 'd', 'e', 'f'] as const;

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
