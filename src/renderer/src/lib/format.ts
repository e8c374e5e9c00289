/** Numbers as a curator reads them: ε to 3 significant digits, counts with separators. */

/** 3 significant digits; very small or large values in scientific notation (e.g. δ = 9.43e-10). */
export function sig3(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '−∞';
  if (x === 0) return '0';
  const abs = Math.abs(x);
  if (abs < 1e-3 || abs >= 1e6) return x.toExponential(2).replace('e-', 'e−');
  return Number(x.toPrecision(3)).toLocaleString('en-US', { maximumSignificantDigits: 3 });
}

/** ε (and ρ) for display. */
export const eps = sig3;

/** Integer counts with thousands separators; bigints arrive as decimal strings. */
export function count(x: number | string | bigint | null | undefined): string {
  if (x === null || x === undefined) return '—';
  if (typeof x === 'string') return BigInt(x).toLocaleString('en-US');
  return x.toLocaleString('en-US');
}

/** A share in [0, 1] as a percentage with one decimal. */
export function pct(x: number | null | undefined): string {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  return `${(100 * x).toFixed(1)}%`;
}

/** An error (a fraction of rows) with 3 significant digits. */
export const err = sig3;

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

/** Seconds as m:ss (or h:mm:ss). */
export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const mm = h > 0 ? String(m).padStart(2, '0') : String(m);
  return `${h > 0 ? `${h}:` : ''}${mm}:${String(sec).padStart(2, '0')}`;
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

export function shortHash(h: string | null | undefined): string {
  return h ? `${h.slice(0, 12)}…` : '—';
}

/** "about N" records: two significant digits, rounded up (core/discovery/preview.ts's aboutRecords). */
export function about(x: number): string {
  return Number(Math.ceil(x).toPrecision(2)).toLocaleString('en-US');
}
