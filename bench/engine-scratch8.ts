import { randomWorkload } from '../src/core/workload/random.ts';
const sizes = [85, 9, 100, 16, 7, 15, 6, 5, 2, 100, 100, 99, 42, 2];
for (const r of [1, 2]) for (const seed of [1, 2, 3]) {
  const w = randomWorkload({ numFeatures: 14, k: 4, r, size: 16, seed });
  const t = w.thresholds.map((t) => t.features.reduce((p, f) => p * sizes[f], 1));
  console.log(r, seed, 'm', t.reduce((a, b) => a + b, 0), 'max', Math.max(...t));
}
for (const seed of [1, 2, 3]) { const w = randomWorkload({ numFeatures: 14, k: 3, r: 3, size: 64, seed }); const t = w.thresholds.map((t) => t.features.reduce((p, f) => p * sizes[f], 1)); console.log('3way64', seed, t.reduce((a, b) => a + b, 0), Math.max(...t)); }
