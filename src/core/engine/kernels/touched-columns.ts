/**
 * The one-hot columns a session's gradient has reached since its optimizer was reset: only they
 * can move in an Adam step, and only their feature blocks need a projection.
 */
import type { RelaxedShape } from '../relaxed.ts';

/** [start, end) pairs of D' indices (column-major) of the touched columns, merged. */
export function touchedRanges(touched: Uint8Array, shape: RelaxedShape): number[] {
  const { rows, layout } = shape;
  const out: number[] = [];
  for (let c = 0; c < layout.width; c++) {
    if (!touched[c]) continue;
    const start = c * rows;
    if (out.length > 0 && out[out.length - 1] === start) out[out.length - 1] = start + rows;
    else out.push(start, start + rows);
  }
  return out;
}

/** Features with a touched column; before any gradient (initial projection) all of them. */
export function touchedBlocks(touched: Uint8Array, shape: RelaxedShape): number[] {
  const { layout } = shape;
  const all = layout.sizes.map((_, j) => j);
  if (!touched.includes(1)) return all;
  return all.filter((j) =>
    touched.subarray(layout.offsets[j], layout.offsets[j] + layout.sizes[j]).includes(1),
  );
}
