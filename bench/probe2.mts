import { splitBudget } from '../src/core/discovery/budget.ts';
import { discoveryLossPreview } from '../src/core/discovery/preview.ts';
for (const n of [2000, 3000, 6000]) for (const e of [1, 2, 4]) {
  const b = splitBudget(e, 1 / n / n, 0.2, true);
  const p = discoveryLossPreview(b, ['a', 'b']);
  console.log(n, e, p[0].mergeBelow.toFixed(0), p[0].sigma.toFixed(1));
}
