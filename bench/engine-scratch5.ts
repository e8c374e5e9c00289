import path from 'node:path';
import { loadBenchmark } from '../src/core/data/load.ts';
import { layoutOf } from '../src/core/data/onehot.ts';
import { typedKernels } from '../src/core/engine/kernels/typed.ts';
import { uniformRelaxed } from '../src/core/engine/relaxed.ts';
import { seededNoise } from '../src/core/privacy/noise.ts';
import { randomWorkload } from '../src/core/workload/random.ts';
import { exactThresholdAnswers } from '../src/core/workload/exact.ts';
import { SelectedQueries } from '../src/core/engine/selected-queries.ts';
import { RunControl } from '../src/core/engine/run-control.ts';
import { ADAM_DEFAULTS } from '../src/core/engine/kernels/adam.ts';
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const dir = path.resolve('../shared/datasets/adult');
const data = (await loadBenchmark(path.join(dir, 'adult.csv'), path.join(dir, 'adult-domain.json'))).dataset;
const layout = layoutOf(data.schema);
const w = randomWorkload({ numFeatures: 14, k: 3, r: 3, size: 16, seed: 1 });
const shape = { rows: 1000, layout };
const [lr, eps, perThr, steps] = process.argv.slice(2).map(Number);
const noise = seededNoise(1);
const s = typedKernels.open(shape, uniformRelaxed(shape, noise));
s.project();
const sel = new SelectedQueries(w, layout, new Float64Array(64).fill(1));
const exact = w.thresholds.map((t) => exactThresholdAnswers(data, t));
w.thresholds.forEach((t, ti) => {
  const e = exact[ti];
  const idx = [...e.keys()].sort((a, b) => e[b] - e[a]).slice(0, perThr);
  for (const y of idx) sel.add(ti, y, e[y] + 0.01 * noise.normal());
});
const density = () => { const v = s.read(); let nz = 0; for (const x of v) if (x !== 0) nz++; return (nz / v.length); };
const present = () => { let mx = 0; w.thresholds.forEach((t, ti) => { const a = s.thresholdAnswers(t); a.forEach((x, y) => { mx = Math.max(mx, Math.abs(x - exact[ti][y])); }); }); return mx; };
let t0 = cpu();
const batch = { groups: sel.groups(), tables: [] };
s.resetOptimizer();
for (let st = 1; st <= steps; st++) {
  const r = s.lossAndGradient(batch);
  s.adamStep({ ...ADAM_DEFAULTS, learningRate: lr, epsilon: eps });
  s.project();
  if (st % (steps / 4) === 0) {
    const tp = cpu(); const pe = present(); const evalMs = cpu() - tp;
    console.log(`step ${st} loss ${r.loss.toExponential(2)} maxSel ${r.maxError.toFixed(4)} density ${density().toFixed(3)} present ${pe.toFixed(4)} evalMs ${evalMs.toFixed(0)} stepMs ${((cpu() - t0 - evalMs) / st).toFixed(1)}`);
    t0 += evalMs;
  }
}
