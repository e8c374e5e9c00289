/**
 * `--profile`: where a run's time goes. The engine's report gives selection and projection
 * seconds; finer phases come from V8's sampling CPU profiler (node:inspector, in-process), whose
 * samples are attributed two ways:
 * - phase: the innermost engine phase on the stack (selection, projection, evaluation, setup);
 * - kind: the innermost engine file on the stack, named by what it does (sparsemax, product
 *   tables, loss & gradient, exact answers, …), with copying builtins counted as data movement
 *   and the garbage collector as gc.
 * The raw profile is saved as a .cpuprofile file (open it in Chrome DevTools).
 */
import { Session } from 'node:inspector/promises';

export interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

export interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

/** The subset of the DevTools protocol's Profiler.Profile used here. */
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

export interface ProfileSummary {
  readonly sampledSeconds: number;
  /** Seconds per phase, then per kind, largest first. */
  readonly byPhase: readonly { name: string; seconds: number }[];
  readonly byKind: readonly { name: string; seconds: number }[];
  /** Seconds per "phase / kind" pair, largest first. */
  readonly byPhaseAndKind: readonly { name: string; seconds: number }[];
  readonly topFunctions: readonly { name: string; where: string; seconds: number }[];
}

const PHASES: readonly [RegExp, string][] = [
  [/engine\/projection\.ts$/, 'projection'],
  [/(engine|privacy)\/selection\.ts$|engine\/selected-queries\.ts$/, 'selection'],
  [/engine\/(metrics|rounding|gaussian-baseline)\.ts$/, 'evaluation'],
  [/src\/core\/data\/|bench\//, 'setup'],
];

/**
 * rap.ts only orchestrates: its closures run inside other phases (e.g. the evaluation calls back
 * into rap.ts for answers), so it names the phase only when no real phase is on the stack.
 */
const ORCHESTRATION = /engine\/rap\.ts$/;

const KINDS: readonly [RegExp, string][] = [
  [/kernels\/sparsemax\.ts$/, 'sparsemax'],
  [
    /kernels\/(product-tables|threshold-answers|backprop|group-sums|scratch|sparse-rows)\.ts$/,
    'product tables',
  ],
  // Shared by the kernels and the exact answers (the at-least-r transform, marginalisation).
  [/workload\/(table|at-least-r)\.ts$/, 'table algebra'],
  [/kernels\/query-gradient\.ts$/, 'loss & gradient'],
  [/kernels\/adam\.ts$/, 'adam'],
  [/kernels\/(typed|tfjs)\.ts$|engine\/relaxed\.ts$/, 'kernel session (with inlined callees)'],
  [/workload\/(exact|inclusion-exclusion|queries)\.ts$|engine\/exact-answers\.ts$/, 'exact answers'],
  [/(engine|privacy)\/selection\.ts$|engine\/selected-queries\.ts$/, 'selection scoring'],
  [/privacy\/(noise|random-words|gaussian)\.ts$/, 'noise'],
  [/engine\/(metrics|rounding|gaussian-baseline)\.ts$/, 'evaluation'],
  [/engine\/projection\.ts$/, 'projection loop'],
  [/@tensorflow\//, 'tfjs'],
  [/src\/core\/data\//, 'data loading'],
];

/** Builtins that copy or fill memory: their self time is data movement wherever they are called. */
const COPYING = new Set([
  'set',
  'slice',
  'subarray',
  'fill',
  'copyWithin',
  'from',
  'of',
  'concat',
  'dataSync',
  'arraySync',
  'readSync',
]);

const SPECIAL: Readonly<Record<string, string>> = {
  '(garbage collector)': 'gc',
  '(idle)': 'idle',
  '(program)': 'program (V8/native)',
  '(root)': 'program (V8/native)',
};

function firstMatch(url: string, rules: readonly [RegExp, string][]): string | undefined {
  return rules.find(([re]) => re.test(url))?.[1];
}

/** Self time in seconds per node id. */
export function selfSeconds(profile: CpuProfile): Map<number, number> {
  const out = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // timeDeltas[i] is the gap before sample i: the time sample i−1 stood for.
  for (let i = 0; i < samples.length; i++) {
    const dt = i + 1 < deltas.length ? deltas[i + 1] : 0;
    out.set(samples[i], (out.get(samples[i]) ?? 0) + Math.max(0, dt) / 1e6);
  }
  return out;
}

export function parents(profile: CpuProfile): Map<number, ProfileNode | undefined> {
  const parent = new Map<number, ProfileNode | undefined>();
  for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node);
  for (const node of profile.nodes) if (!parent.has(node.id)) parent.set(node.id, undefined);
  return parent;
}

/** The node and its ancestors, innermost first. */
function* stack(node: ProfileNode, parent: Map<number, ProfileNode | undefined>): Generator<ProfileNode> {
  for (let n: ProfileNode | undefined = node; n; n = parent.get(n.id)) yield n;
}

export function classify(
  node: ProfileNode,
  parent: Map<number, ProfileNode | undefined>,
): { phase: string; kind: string } {
  const frames = [...stack(node, parent)];
  const phase =
    frames.map((f) => firstMatch(f.callFrame.url, PHASES)).find((p) => p) ??
    (frames.some((f) => ORCHESTRATION.test(f.callFrame.url)) ? 'engine (other)' : 'other');
  const { functionName, url } = node.callFrame;
  let kind = SPECIAL[functionName];
  if (!kind && !url.includes('/') && COPYING.has(functionName)) kind = 'data movement';
  kind ??= frames.map((f) => firstMatch(f.callFrame.url, KINDS)).find((k) => k) ?? 'other';
  return { phase, kind };
}

function sorted(m: Map<string, number>): { name: string; seconds: number }[] {
  return [...m].map(([name, seconds]) => ({ name, seconds })).sort((a, b) => b.seconds - a.seconds);
}

function add(m: Map<string, number>, key: string, s: number): void {
  m.set(key, (m.get(key) ?? 0) + s);
}

export function summarizeProfile(profile: CpuProfile, top = 15): ProfileSummary {
  const self = selfSeconds(profile);
  const parent = parents(profile);
  const byPhase = new Map<string, number>();
  const byKind = new Map<string, number>();
  const pairs = new Map<string, number>();
  const fns = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const s = self.get(node.id) ?? 0;
    if (s === 0) continue;
    total += s;
    const { phase, kind } = classify(node, parent);
    add(byPhase, phase, s);
    add(byKind, kind, s);
    add(pairs, `${phase} / ${kind}`, s);
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.replace(/^.*\/(src|bench|node_modules)\//, '$1/');
    const line = lineNumber > 0 ? `:${lineNumber + 1}` : ''; // tsx-transformed code may report 0
    add(fns, `${functionName || '(anonymous)'}\t${file ? `${file}${line}` : '(native)'}`, s);
  }
  return {
    sampledSeconds: total,
    byPhase: sorted(byPhase),
    byKind: sorted(byKind),
    byPhaseAndKind: sorted(pairs),
    topFunctions: sorted(fns)
      .slice(0, top)
      .map(({ name, seconds }) => {
        const [fn, where] = name.split('\t');
        return { name: fn, where, seconds };
      }),
  };
}

/** The in-process sampling profiler around one run. */
export class CpuProfiler {
  private readonly session = new Session();

  async start(intervalMicros = 1000): Promise<void> {
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.setSamplingInterval', { interval: intervalMicros });
    await this.session.post('Profiler.start');
  }

  async stop(): Promise<CpuProfile> {
    const { profile } = await this.session.post('Profiler.stop');
    await this.session.post('Profiler.disable');
    this.session.disconnect();
    return profile as CpuProfile;
  }
}
