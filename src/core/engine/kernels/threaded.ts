/**
 * The CPU kernels on every core: the typed-array math of typed.ts split across worker_threads that
 * share D' (shard.ts says how the work is split and why the results are bit-identical to typed.ts
 * whatever the thread count). The engine's thread is thread 0 and does a share itself; with one
 * thread no worker is started.
 *
 * The kernel interface is synchronous, so the engine's thread posts a command to every worker and
 * blocks in Atomics.wait until all have counted themselves done. Workers are started once per
 * process and thread count (asynchronously, so a worker that fails to load is seen); when they do
 * not start (a bundled build without the worker file, a loader that fails) the kernels run on one
 * thread and say why in `note`.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { thresholdSizes } from '../../workload/queries.ts';
import { type CategoryGroups, type TableGrouping, tableSize } from '../../workload/table.ts';
import type { Threshold } from '../../workload/types.ts';
import type { RelaxedShape } from '../relaxed.ts';
import { type AdamHyper, beginAdamStep } from './adam.ts';
import { type LossResult, queryGroupLoss } from './query-gradient.ts';
import { assertInitial, type EngineKernels, type KernelSession, type ProjectionBatch } from './session.ts';
import {
  type AdamWork,
  allocateShared,
  type BackwardTask,
  CONTROL,
  CONTROL_WORDS,
  type ForwardTask,
  type GroupsSpec,
  Shard,
  type ShardCommand,
  type SharedBuffers,
  type WorkerMessage,
} from './shard.ts';
import { backwardPlan, passTables, touchTables } from './table-pass.ts';
import { touchedBlocks, touchedRanges } from './touched-columns.ts';
import { tableResidual, typedKernels } from './typed.ts';

/** Threads by default: every core the OS lets this process use. */
export function defaultThreads(): number {
  return availableParallelism();
}

/** Multi-threaded CPU kernels, the workers started (or the reason they could not be in `note`). */
export interface ThreadedKernels extends EngineKernels {
  /** Threads that run (the engine's own included). */
  readonly threads: number;
  /** Why fewer threads run than were asked for, if so. */
  readonly note?: string;
}

/** CPU kernels on `threads` threads (default: every core); workers are shared by later calls. */
export async function threadedKernels(threads: number = defaultThreads()): Promise<ThreadedKernels> {
  if (!Number.isInteger(threads) || threads < 1)
    throw new RangeError(`threads must be a positive integer, got ${threads}`);
  const pool = await threadPool(threads);
  return {
    backend: 'cpu',
    threads: pool.threads,
    ...(pool.note ? { note: pool.note } : {}),
    // The softmax relaxation (softmax.ts) runs on the single-threaded typed session for now.
    open: (shape, initial, relaxation) =>
      relaxation === 'softmax'
        ? typedKernels.open(shape, initial, 'softmax')
        : new ThreadedSession(shape, initial, pool),
  };
}

/** How long a worker may take to start (module loading through tsx, on a loaded machine). */
const START_TIMEOUT_MS = 60_000;
/** A command that makes no progress this long means a worker died: fail instead of hanging. */
const STALL_TIMEOUT_MS = 600_000;

/** A worker module beside this one, as a path (.ts from sources, .js once built). */
export function workerFile(name: string): string {
  return fileURLToPath(new URL(`./${name}${extname(import.meta.url)}`, import.meta.url));
}

const WORKER_FILE = workerFile('thread-worker');

/**
 * Starts a worker on `file`. From TypeScript sources (tsx, vitest) the worker registers tsx's
 * CommonJS hook first: Node 20 does not pass the parent's module loaders to workers.
 */
export function spawnWorker(file: string, workerData: unknown, transferList: MessagePort[]): Worker {
  if (!file.endsWith('.ts')) return new Worker(file, { workerData, transferList });
  const api = createRequire(import.meta.url).resolve('tsx/cjs/api');
  const code = `require(${JSON.stringify(api)}).register(); require(${JSON.stringify(file)});`;
  return new Worker(code, { eval: true, workerData, transferList });
}

const pools = new Map<number, Promise<ThreadPool>>();

/** The process's pool of `threads` threads, started once (idle workers do not keep Node alive). */
function threadPool(threads: number): Promise<ThreadPool> {
  let pool = pools.get(threads);
  if (!pool) pools.set(threads, (pool = ThreadPool.start(threads)));
  return pool;
}

class ThreadPool {
  private readonly control: Int32Array;
  private attached: ThreadedSession | undefined;

  private constructor(
    readonly controlBuffer: SharedArrayBuffer,
    private readonly workers: Worker[],
    private readonly errorPorts: MessagePort[],
    readonly note: string | undefined,
  ) {
    this.control = new Int32Array(controlBuffer);
  }

  static async start(threads: number): Promise<ThreadPool> {
    const control = new SharedArrayBuffer(4 * CONTROL_WORDS);
    if (threads <= 1) return new ThreadPool(control, [], [], undefined);
    if (!existsSync(WORKER_FILE))
      return new ThreadPool(control, [], [], `no worker file (${WORKER_FILE}): one thread`);
    const workers: Worker[] = [];
    const ports: MessagePort[] = [];
    try {
      for (let thread = 1; thread < threads; thread++) {
        const { port1, port2 } = new MessageChannel();
        workers.push(spawnWorker(WORKER_FILE, { errors: port1, control, thread, threads }, [port1]));
        ports.push(port2);
      }
      await Promise.all(workers.map((w) => started(w)));
      for (const worker of workers) worker.unref();
      return new ThreadPool(control, workers, ports, undefined);
    } catch (err) {
      for (const worker of workers) void worker.terminate();
      for (const port of ports) port.close();
      return new ThreadPool(
        control,
        [],
        [],
        `worker threads did not start (${(err as Error).message}): one thread`,
      );
    }
  }

  get threads(): number {
    return this.workers.length + 1;
  }

  /** Makes `session` the one whose memory the workers use. */
  attach(session: ThreadedSession, shape: RelaxedShape, buffers: SharedBuffers): void {
    if (this.attached === session) return;
    this.broadcast({ type: 'attach', shape, buffers });
    this.attached = session;
  }

  detach(session: ThreadedSession): void {
    if (this.attached !== session) return;
    this.broadcast({ type: 'detach' });
    this.attached = undefined;
  }

  /** Runs `cmd` on every worker and on `local` (thread 0), and returns when all are done. */
  run(cmd: ShardCommand, local: Shard): void {
    let localError: unknown;
    this.broadcast(cmd, () => {
      try {
        local.run(cmd);
      } catch (err) {
        localError = err;
      }
    });
    if (localError) throw localError;
  }

  private broadcast(message: WorkerMessage, alongside?: () => void): void {
    const control = this.control;
    Atomics.store(control, CONTROL.next, 0);
    Atomics.store(control, CONTROL.done, 0);
    Atomics.store(control, CONTROL.error, 0);
    for (const worker of this.workers) worker.postMessage(message);
    alongside?.();
    const deadline = Date.now() + STALL_TIMEOUT_MS;
    for (;;) {
      const done = Atomics.load(control, CONTROL.done);
      if (done >= this.workers.length) break;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`kernel workers did not finish within ${STALL_TIMEOUT_MS / 1000} s`);
      Atomics.wait(control, CONTROL.done, done, left);
    }
    if (Atomics.load(control, CONTROL.error)) {
      const messages = this.errorPorts.flatMap((p) => {
        const got = receiveMessageOnPort(p);
        return got ? [String(got.message)] : [];
      });
      throw new Error(`a kernel worker failed: ${messages.join('; ') || 'unknown error'}`);
    }
  }
}

/** Resolves with the worker's next message; rejects if it fails, exits or takes too long. */
export function started(worker: Worker, timeoutMs = START_TIMEOUT_MS): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`no answer in ${timeoutMs / 1000} s`)), timeoutMs);
    const detach = () => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', fail);
      worker.off('exit', onExit);
    };
    const fail = (err: Error) => {
      detach();
      reject(err);
    };
    const onMessage = (message: unknown) => {
      detach();
      resolve(message);
    };
    const onExit = (code: number) => fail(new Error(`worker exited with code ${code}`));
    worker.on('message', onMessage);
    worker.on('error', fail);
    worker.on('exit', onExit);
  });
}

class ThreadedSession implements KernelSession {
  readonly backend = 'cpu' as const;
  private readonly shard: Shard;
  private readonly buffers: SharedBuffers;
  /** Adam's step counter (the moments live in shared memory). */
  private readonly adamCounter = { t: 0 };
  /** An Adam step not yet applied (see project). */
  private pendingAdam: AdamWork | undefined;
  private readonly touched: Uint8Array;
  /** Features whose sparse rows no longer match D' (moved by a step, not yet projected). */
  private readonly stale: Set<number>;
  private exchange = new SharedArrayBuffer(8 * 1024);
  private readonly groupIds = new Map<CategoryGroups, number>();

  constructor(
    private readonly shape: RelaxedShape,
    initial: Float64Array,
    private readonly pool: ThreadPool,
  ) {
    assertInitial(shape, initial);
    this.buffers = allocateShared(shape);
    new Float64Array(this.buffers.values).set(initial);
    this.touched = new Uint8Array(shape.layout.width);
    this.stale = new Set(shape.layout.sizes.map((_, j) => j));
    const control = pool.controlBuffer;
    this.shard = new Shard({ shape, buffers: this.buffers, control, thread: 0, threads: pool.threads });
  }

  private run(cmd: ShardCommand): void {
    this.pool.attach(this, this.shape, this.buffers);
    this.pool.run(cmd, this.shard);
  }

  project(): void {
    const { sizes } = this.shape.layout;
    const features = largestFirst(touchedBlocks(this.touched, this.shape), (j) => sizes[j]);
    // A pending Adam step runs inside the projection, block by block: one barrier less per step.
    const adam = this.pendingAdam;
    this.pendingAdam = undefined;
    this.run({ type: 'project', features, project: true, ...(adam ? { adam } : {}) });
    for (const j of features) this.stale.delete(j);
    this.refreshStale();
  }

  /** Rebuilds the sparse rows of blocks a step moved without a projection since. */
  private refreshStale(): void {
    if (this.stale.size === 0) return;
    this.run({ type: 'project', features: [...this.stale], project: false });
    this.stale.clear();
  }

  /** Applies a pending Adam step on its own (anything but a projection came next). */
  private flushAdam(): void {
    const adam = this.pendingAdam;
    if (!adam) return;
    this.pendingAdam = undefined;
    this.run({ type: 'adam', ...adam });
  }

  read(): Float64Array {
    this.flushAdam();
    return Float64Array.from(this.shard.values);
  }

  readGradient(): Float64Array {
    this.flushAdam();
    return Float64Array.from(this.shard.grad);
  }

  thresholdAnswers(t: Threshold): Float64Array {
    this.flushAdam();
    this.refreshStale();
    return Float64Array.from(this.shard.answers({ threshold: t }));
  }

  /** Each threshold computed whole by one thread (the forward pass's tasks): as thresholdAnswers. */
  answersOf(thresholds: readonly Threshold[]): Float64Array[] {
    this.flushAdam();
    this.refreshStale();
    const { sizes } = this.shape.layout;
    const cells = thresholds.map((t) => tableSize(thresholdSizes(t, sizes)));
    const tasks = this.forward(
      thresholds.map((t) => ({ threshold: { features: t.features, r: t.r } })),
      cells,
    );
    return tasks.map((task, i) => new Float64Array(this.exchange, 8 * task.out, cells[i]).slice());
  }

  /**
   * The tables' answers, one after the other in the exchange buffer (`cells` each), computed a
   * table per thread, the largest first; the tasks say where each one is.
   */
  private forward(tables: readonly Omit<ForwardTask, 'out'>[], cells: readonly number[]): ForwardTask[] {
    let offset = 0;
    const tasks = tables.map((table, i): ForwardTask => {
      const task = { ...table, out: offset };
      offset += cells[i];
      return task;
    });
    this.reserveExchange(offset);
    this.run({ type: 'forward', tasks: largestFirst(tasks, (_, i) => cells[i]), exchange: this.exchange });
    return tasks;
  }

  lossAndGradient(batch: ProjectionBatch, scale = 1): LossResult {
    this.flushAdam();
    const acc: LossResult = { loss: 0, maxError: 0 };
    const { rows, layout } = this.shape;
    // Selected queries first (as typed.ts): on this thread, they are small next to the tables.
    for (const group of batch.groups) {
      for (let i = 0; i < group.columns.length; i++) this.touched[group.columns[i]] = 1;
      queryGroupLoss(this.shard.values, rows, group, scale, this.shard.grad, acc);
    }
    if (batch.tables.length === 0) return acc;
    this.refreshStale();
    touchTables(this.touched, layout, batch.tables);
    // Forward: every table's answers, a table per thread at a time.
    const tables = passTables(batch.tables, layout);
    const specs = tables.map((table) =>
      table.grouped ? this.groupingSpec(table.target.grouping) : undefined,
    );
    const sizes = tables.map((table) => table.cells);
    const forward = this.forward(
      tables.map((table, i) => {
        const spec = specs[i];
        const { features, r } = table.target.threshold;
        return { threshold: { features, r }, ...(spec ? { grouping: spec } : {}) };
      }),
      sizes,
    );
    const answersEnd = sizes.reduce((a, b) => a + b, 0);
    // Residuals in table order (the loss sums as typed.ts does), then the cotangents.
    const cotangents: { task: BackwardTask; tables: Float64Array[] }[] = [];
    let needed = answersEnd;
    const place = (G: Float64Array): number => {
      const g = needed;
      needed += G.length;
      return g;
    };
    tables.forEach((table, i) => {
      const answers = new Float64Array(this.exchange, 8 * forward[i].out, sizes[i]);
      const plan = backwardPlan(table, tableResidual(answers, table.target, acc), scale, rows);
      if (plan.grouped) {
        const { dims, G, scale: s } = plan.cotangent;
        const { features } = plan.target.threshold;
        // A grouped table has its spec (specs[i] is set exactly where tables[i].grouped).
        const task = { kind: 'grouped' as const, features, grouping: specs[i]!, dims };
        cotangents.push({ task: { ...task, g: place(G), length: G.length, scale: s }, tables: [G] });
        return;
      }
      const terms = plan.terms.map(({ features, dims, G, scale: s }) => ({
        features,
        dims,
        g: place(G),
        length: G.length,
        scale: s,
      }));
      cotangents.push({ task: { kind: 'plain', terms }, tables: plan.terms.map((term) => term.G) });
    });
    this.reserveExchange(needed);
    const exchange = new Float64Array(this.exchange);
    let at = answersEnd;
    for (const c of cotangents) {
      for (const G of c.tables) {
        exchange.set(G, at);
        at += G.length;
      }
    }
    this.run({
      type: 'backward',
      tasks: cotangents.map((c) => c.task),
      exchange: this.exchange,
    });
    return acc;
  }

  /** The exchange buffer holds at least `cells` numbers (kept contents are not needed). */
  private reserveExchange(cells: number): void {
    if (this.exchange.byteLength >= 8 * cells) return;
    this.exchange = new SharedArrayBuffer(8 * Math.max(cells, 2 * (this.exchange.byteLength / 8)));
  }

  private groupingSpec(grouping: TableGrouping): (GroupsSpec | null)[] {
    return grouping.map((g) => {
      if (!g) return null;
      let id = this.groupIds.get(g);
      if (id === undefined) this.groupIds.set(g, (id = this.groupIds.size));
      return { id, of: g.of, count: g.count };
    });
  }

  adamStep(hyper: AdamHyper): void {
    this.flushAdam();
    const constants = beginAdamStep(this.adamCounter, hyper);
    // Applied by the next projection (or on its own before anything else reads D').
    this.pendingAdam = { constants, ranges: touchedRanges(this.touched, this.shape) };
    for (const j of touchedBlocks(this.touched, this.shape)) this.stale.add(j);
  }

  resetOptimizer(): void {
    this.flushAdam();
    const b = this.buffers;
    new Float64Array(b.m).fill(0);
    new Float64Array(b.v).fill(0);
    this.shard.grad.fill(0);
    this.adamCounter.t = 0;
    this.touched.fill(0);
  }

  dispose(): void {
    this.pool.detach(this);
  }
}

/**
 * The items, dearest first (stable): threads take work from a shared counter, so a large block
 * or table taken last would leave the other threads waiting (longest-processing-time-first
 * order). The order never changes a result: each block and table is computed whole by one thread.
 */
function largestFirst<T>(items: readonly T[], cost: (item: T, index: number) => number): T[] {
  return items
    .map((item, index) => ({ item, cost: cost(item, index), index }))
    .sort((a, b) => b.cost - a.cost || a.index - b.index)
    .map((x) => x.item);
}
