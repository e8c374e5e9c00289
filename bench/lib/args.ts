/** Command-line options of `npm run bench`. */
import { parseArgs } from 'node:util';
import type { BackendName } from '../../src/core/engine/types.ts';
import { BACKENDS } from '../../src/core/input/choices.ts';

export const USAGE = `npm run bench -- [options]

  --suite NAME       quick (default), paper, scale, scale-engine, …
  --out DIR          per-run JSON, table.md and summary.json (default bench-results/tmp/<suite>-<time>/)
  --seeds N          seeds 0..N−1 per case (default: the suite's)
  --filter TERM      only cases whose id contains TERM (repeat: all must match; a,b: either;
                     !TERM: must not match);
                     ids look like adult/3of3/W16/eps0.1/T=def/K=def/query/s0 (use /W1/ for exact)
  --max-rounds R     cut cases with T > R rounds to R rounds at the same per-round ρ and
                     extrapolate their times to T (labelled extrapolated; errors n/a)
  --profile          CPU-profile each run: phase and kernel breakdown in the table, .cpuprofile files
                     (the engine in-process, not a release: a kernel micro-benchmark, labelled so)
  --engine-only      the engine in-process instead of the release pipeline (kernel micro-benchmark)
  --backend NAME     cpu, wasm, node, node-gpu, webgpu (default: the engine's choice)
  --threads N        CPU kernel threads (default: every core; results do not depend on it)
  --no-latest        do not update bench/results/latest-<suite>.md
  --latest           update it even for a filtered run (its header names the filter)
  --from DIR         run nothing: build the table from the runs/*.json of earlier --out folders
                     (repeatable; the suite's cases, --seeds and --filter still select)
  --note TEXT        a line for the table's header (repeatable), e.g. what else loaded the machine
  --list             print the case ids and exit
  --help`;

export interface BenchArgs {
  readonly suite: string;
  readonly out?: string;
  readonly seeds?: number;
  readonly filter: readonly string[];
  readonly maxRounds?: number;
  readonly profile: boolean;
  readonly engineOnly: boolean;
  readonly backend?: BackendName;
  readonly threads?: number;
  readonly latest: boolean;
  readonly list: boolean;
  readonly help: boolean;
  /** Earlier --out folders to build the table from, instead of running. */
  readonly from: readonly string[];
  readonly notes: readonly string[];
}

export class BenchArgsError extends Error {}

function positiveInt(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < 1) {
    throw new BenchArgsError(`--${name} must be an integer >= 1, got '${v}'`);
  }
  return n;
}

export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse(argv));
  } catch (err) {
    throw new BenchArgsError((err as Error).message);
  }
  const backend = values.backend;
  if (backend !== undefined && !(BACKENDS as readonly string[]).includes(backend)) {
    throw new BenchArgsError(`--backend must be one of ${BACKENDS.join(', ')}, got '${backend}'`);
  }
  const filter = values.filter ?? [];
  if (
    filter.some((t) =>
      t
        .replace(/^!/, '')
        .split(',')
        .every((alt) => alt === ''),
    )
  ) {
    throw new BenchArgsError('--filter needs a non-empty term');
  }
  const seeds = positiveInt('seeds', values.seeds);
  const maxRounds = positiveInt('max-rounds', values['max-rounds']);
  const threads = positiveInt('threads', values.threads);
  return {
    suite: values.suite ?? 'quick',
    ...(values.out !== undefined ? { out: values.out } : {}),
    ...(seeds !== undefined ? { seeds } : {}),
    filter,
    ...(maxRounds !== undefined ? { maxRounds } : {}),
    profile: values.profile ?? false,
    engineOnly: values['engine-only'] ?? false,
    ...(backend !== undefined ? { backend: backend as BackendName } : {}),
    ...(threads !== undefined ? { threads } : {}),
    latest: !(values['no-latest'] ?? false) && (filter.length === 0 || (values.latest ?? false)),
    list: values.list ?? false,
    help: values.help ?? false,
    from: values.from ?? [],
    notes: values.note ?? [],
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      suite: { type: 'string' },
      out: { type: 'string' },
      seeds: { type: 'string' },
      filter: { type: 'string', multiple: true },
      'max-rounds': { type: 'string' },
      profile: { type: 'boolean' },
      'engine-only': { type: 'boolean' },
      backend: { type: 'string' },
      threads: { type: 'string' },
      'no-latest': { type: 'boolean' },
      latest: { type: 'boolean' },
      list: { type: 'boolean' },
      from: { type: 'string', multiple: true },
      note: { type: 'string', multiple: true },
      help: { type: 'boolean' },
    },
  });
}
