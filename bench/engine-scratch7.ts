import path from 'node:path';
import { loadBenchmark } from '../src/core/data/load.ts';
import { defaultOptions } from '../src/core/engine/defaults.ts';
import { runRap } from '../src/core/engine/rap.ts';
import { seededNoise } from '../src/core/privacy/noise.ts';
import { randomWorkload } from '../src/core/workload/random.ts';
const dir = path.resolve('../shared/datasets/adult');
const data = (await loadBenchmark(path.join(dir, 'adult.csv'), path.join(dir, 'adult-domain.json'))).dataset;
const [eps, T, K, lr, seed, adamEps, size] = process.argv.slice(2).map(Number);
void adamEps;
const w = randomWorkload({ numFeatures: 14, k: 3, r: 3, size: size || 16, seed: seed });
let last = -1;
const { report } = await runRap({ data, workload: w, options: defaultOptions({ epsilon: eps, delta: 1 / data.n ** 2, rounds: T, perRound: K, learningRate: lr }), noise: seededNoise(seed),
  });
console.log(process.argv.slice(2).join(' '), 'present', report.presentError.toFixed(4), 'rounded', report.roundedPresentError.toFixed(4), 'all0', report.all0Error.toFixed(3), 'steps', report.projectionSteps, 'sec', report.secondsTotal.toFixed(0), 'sel', report.secondsSelection.toFixed(0), 'dens', (report.relaxedDensity as number)?.toFixed(3));
