/**
 * Throughput of the privacy core's samplers and selection.
 * Run: npx tsx bench/privacy.bench.ts [--candidates 100000000] [--k 1000]
 * Prints timings only; no assertions (unit tests own correctness).
 */
import { gaussianMechanism, gumbelScale, NoisyTopK } from '../src/core/privacy/mechanisms.ts';
import { type NoiseSource, secureNoise, seededNoise } from '../src/core/privacy/noise.ts';

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

function time(label: string, count: number, body: () => number): void {
  const start = process.hrtime.bigint();
  const checksum = body();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const nsEach = (ms * 1e6) / count;
  console.log(
    `${label.padEnd(46)} ${ms.toFixed(0).padStart(7)} ms  ${nsEach.toFixed(1).padStart(6)} ns/item  (${checksum.toFixed(3)})`,
  );
}

function samplers(name: string, noise: NoiseSource): void {
  const n = 10_000_000;
  time(`${name}: 1e7 uniform()`, n, () => {
    let s = 0;
    for (let i = 0; i < n; i++) s += noise.uniform();
    return s / n;
  });
  time(`${name}: 1e7 gumbel()`, n, () => {
    let s = 0;
    for (let i = 0; i < n; i++) s += noise.gumbel();
    return s / n;
  });
  time(`${name}: 1e7 normal()`, n, () => {
    let s = 0;
    for (let i = 0; i < n; i++) s += noise.normal();
    return s / n;
  });
  const values = new Float64Array(1_000_000).fill(0.25);
  time(`${name}: gaussianMechanism on 1e6 values`, values.length, () => {
    const out = gaussianMechanism(values, 1e-3, noise);
    return out[0];
  });
}

function streamingTopK(candidates: number, k: number): void {
  const chunk = new Float64Array(1 << 20);
  for (let i = 0; i < chunk.length; i++) chunk[i] = ((i * 2654435761) % 1_000_003) / 1_000_003;
  const scale = gumbelScale(0.01, k, 48842);
  time(`secure: NoisyTopK K=${k} over ${candidates.toExponential(0)} candidates`, candidates, () => {
    const top = new NoisyTopK(k, scale, secureNoise());
    for (let base = 0; base < candidates; base += chunk.length) {
      const size = Math.min(chunk.length, candidates - base);
      top.offer(size === chunk.length ? chunk : chunk.subarray(0, size), base);
    }
    return top.result().length;
  });
}

samplers('secure', secureNoise());
samplers('seeded', seededNoise('bench'));
streamingTopK(arg('candidates', 100_000_000), arg('k', 1000));
