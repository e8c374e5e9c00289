/**
 * The reports' page: one self-contained HTML document (inline CSS, inline SVG charts, no script,
 * no link, no image, no font to fetch), laid out for a screen and for print (A4, charts kept
 * whole on a page).
 */

export function esc(text: unknown): string {
  return String(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A number as a person reads it: integers exact, else up to 4 significant digits (exponent form when tiny or huge). */
export function num(x: unknown): string {
  if (typeof x !== 'number') return String(x);
  if (!Number.isFinite(x)) return '—';
  if (x === 0) return '0';
  // Counts stay exact (32561 rows, not 32560).
  if (Number.isInteger(x) && Math.abs(x) < 1e15) return String(x);
  const a = Math.abs(x);
  if (a < 1e-3 || a >= 1e7) return x.toExponential(3).replace(/\.?0+e/, 'e');
  return String(Number(x.toPrecision(4)));
}

export const pct = (x: number): string => (Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : '—');

const CSS = `
:root { color-scheme: light; --ink:#1d2433; --muted:#5b6577; --line:#dde2ea; --accent:#2f5bd3; --ok:#1a7f37; --warn:#9a6700; --bad:#b42318; --bg:#f6f7fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; }
header.top { border-bottom: 3px solid var(--accent); margin-bottom: 18px; padding-bottom: 10px; }
header.top h1 { margin: 0 0 4px; font-size: 24px; }
.kicker { text-transform: uppercase; letter-spacing: .08em; font-size: 12px; color: var(--muted); font-weight: 600; }
.private-mark { color: var(--bad); }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px 20px; margin: 0 0 16px; break-inside: avoid; }
section.flow { break-inside: auto; }
h2 { font-size: 18px; margin: 0 0 10px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
p { margin: 6px 0; }
.muted { color: var(--muted); }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; word-break: break-all; }
table { border-collapse: collapse; width: 100%; margin: 6px 0; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 18px; margin: 6px 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
.tiles { display: flex; flex-wrap: wrap; gap: 12px; margin: 8px 0; }
.tile { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; min-width: 150px; background: #fbfcfe; }
.tile .v { font-size: 24px; font-weight: 650; }
.tile .l { font-size: 12px; color: var(--muted); }
.badge { display: inline-block; border-radius: 999px; padding: 1px 9px; font-size: 12px; font-weight: 600; background: #eef1f6; }
.badge.ok { background: #dff3e4; color: var(--ok); }
.badge.warn { background: #fff4d6; color: var(--warn); }
.badge.bad { background: #fde4e1; color: var(--bad); }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 10px 18px; }
figure { margin: 6px 0; break-inside: avoid; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 12px; color: var(--muted); }
.guarantee { font-size: 16px; }
.preview { overflow-x: auto; }
.preview td { font-size: 12px; white-space: nowrap; }
@page { size: A4; margin: 14mm; }
@media print {
  body { background: #fff; font-size: 11px; }
  main { max-width: none; padding: 0; }
  section { border: none; padding: 6px 0; border-top: 1px solid var(--line); border-radius: 0; }
  .grid2 { grid-template-columns: 1fr 1fr; }
  .no-print { display: none; }
  .preview { overflow: visible; }
}
`;

/**
 * The whole document. A Content-Security-Policy forbids every fetch: a report that leaves the
 * machine (an email attachment, a file share) cannot call home, and a mistake here shows as a
 * blocked request rather than a leak.
 */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(title)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export function figure(svg: string, caption: string, testid?: string): string {
  return `<figure${testid ? ` data-chart="${esc(testid)}"` : ''}>${svg}<figcaption>${esc(caption)}</figcaption></figure>`;
}
