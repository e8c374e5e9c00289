/**
 * One thread's share of the multi-threaded CPU kernels (threaded.ts): the same code runs on the
 * engine's thread (thread 0) and in each worker (thread-worker.ts), on D', its gradient, the Adam
 * moments and the sparse rows, all in SharedArrayBuffers.
 *
 * Every result is bit-identical to the single-threaded typed kernels (typed.ts), whatever the
 * thread count, because work is split only where no sum crosses a split:
 * - projection: by feature block (sparsemax is per row and block), taken from a shared counter;
 *   the block's sparse rows are written in the same pass;
 * - forward (a table's answers): by table, taken from a shared counter; each table is computed
 *   whole by one thread with the single-threaded code (its sums keep their order);
 * - backward (gradients): by rows, a fixed range per thread; each row's gradient depends on that
 *   row alone and receives the tables' contributions in table order, as in typed.ts;
 * - Adam: by element — inside the next projection, block by block, or (when something else
 *   reads D' first) a fixed range per thread.
 */
import type { OneHotLayout } from '../../data/onehot.ts';
import { tableSize } from '../../workload/table.ts';
import type { Threshold } from '../../workload/types.ts';
import type { RelaxedShape } from '../relaxed.ts';
import { type AdamState, type AdamStepConstants, adamRange } from './adam.ts';
import { GroupSums } from './group-sums.ts';
import type { SparseBlock, SparseRows } from './sparse-rows.ts';
import { projectBlockToSparse } from './sparsemax.ts';
import { backpropGrouped, backpropTerms, GroupedBlocks, passAnswers } from './table-pass.ts';

/** Indices into the control words (Int32Array over a SharedArrayBuffer). */
export const CONTROL = { done: 0, next: 1, error: 2 } as const;
export const CONTROL_WORDS = 3;

/** The shared memory of one session (every view is over a SharedArrayBuffer). */
export interface SharedBuffers {
  /** D', its gradient and the Adam moments: column-major n' × width each. */
  readonly values: SharedArrayBuffer;
  readonly grad: SharedArrayBuffer;
  readonly m: SharedArrayBuffer;
  readonly v: SharedArrayBuffer;
  /** Sparse rows: per feature j, rowStart at j·(n' + 1); categories and values at offsets[j]·n'. */
  readonly rowStarts: SharedArrayBuffer;
  readonly categories: SharedArrayBuffer;
  readonly entries: SharedArrayBuffer;
  /** Per feature, the largest |Σ row − 1| of its block. */
  readonly deviations: SharedArrayBuffer;
}

export function allocateShared(shape: RelaxedShape): SharedBuffers {
  const { rows, layout } = shape;
  const cells = rows * layout.width;
  const f64 = (n: number) => new SharedArrayBuffer(8 * n);
  const i32 = (n: number) => new SharedArrayBuffer(4 * n);
  return {
    values: f64(cells),
    grad: f64(cells),
    m: f64(cells),
    v: f64(cells),
    rowStarts: i32(layout.sizes.length * (rows + 1)),
    categories: i32(cells),
    entries: f64(cells),
    deviations: f64(layout.sizes.length),
  };
}

/** A category grouping as sent to the threads: `id` names it for the threads' caches. */
export interface GroupsSpec {
  readonly id: number;
  readonly of: Int32Array;
  readonly count: number;
}

/** Forward work: a table's answers, written to the exchange buffer at `out`. */
export interface ForwardTask {
  readonly threshold: Pick<Threshold, 'features' | 'r'>;
  /** Per feature its groups (grouped marginals: the answers are over the groups' cells). */
  readonly grouping?: readonly (GroupsSpec | null)[];
  readonly out: number;
}

/** Backward work: grad += scale · ∂ Σ G·P_F / ∂D' for each term (G in the exchange buffer). */
export type BackwardTask =
  | {
      readonly kind: 'plain';
      readonly terms: readonly {
        readonly features: readonly number[];
        readonly dims: readonly number[];
        readonly g: number;
        readonly length: number;
        readonly scale: number;
      }[];
    }
  | {
      readonly kind: 'grouped';
      readonly features: readonly number[];
      readonly grouping: readonly (GroupsSpec | null)[];
      /** Grouped dims. */
      readonly dims: readonly number[];
      readonly g: number;
      readonly length: number;
      readonly scale: number;
    };

export type ShardCommand =
  | {
      readonly type: 'project';
      readonly features: readonly number[];
      readonly project: boolean;
      /** An Adam step to apply first, block by block (its ranges lie in the projected blocks). */
      readonly adam?: AdamWork;
    }
  | { readonly type: 'forward'; readonly tasks: readonly ForwardTask[]; readonly exchange: SharedArrayBuffer }
  | {
      readonly type: 'backward';
      readonly tasks: readonly BackwardTask[];
      readonly exchange: SharedArrayBuffer;
    }
  | ({ readonly type: 'adam' } & AdamWork);

/** One Adam step on the index ranges [start, end) listed in pairs. */
export interface AdamWork {
  readonly constants: AdamStepConstants;
  readonly ranges: readonly number[];
}

/** What a worker receives: a session's shared memory to work on (or none), or a command on it. */
export type WorkerMessage =
  | { readonly type: 'attach'; readonly shape: RelaxedShape; readonly buffers: SharedBuffers }
  | { readonly type: 'detach' }
  | ShardCommand;

/** What a Shard works on: a session's shared memory, and which thread of how many it is. */
export interface ShardInit {
  readonly shape: RelaxedShape;
  readonly buffers: SharedBuffers;
  /** The pool's control words (shared by every session of the pool). */
  readonly control: SharedArrayBuffer;
  readonly thread: number;
  readonly threads: number;
}

/** Rows [start, end) of thread `thread` of `threads` (any split gives the same results). */
export function rowRange(rows: number, thread: number, threads: number): [number, number] {
  return [Math.floor((rows * thread) / threads), Math.floor((rows * (thread + 1)) / threads)];
}

export class Shard {
  readonly values: Float64Array;
  readonly grad: Float64Array;
  readonly control: Int32Array;
  private readonly adam: AdamState;
  private readonly rowStarts: Int32Array;
  private readonly categories: Int32Array;
  private readonly entries: Float64Array;
  private readonly deviations: Float64Array;
  private readonly rows: number;
  private readonly layout: OneHotLayout;
  private sparseView: SparseRows | undefined;
  /** Grouped marginals' blocks of the current sparse rows, by group id. */
  private readonly grouped = new GroupedBlocks<GroupsSpec>((g) => g.id);
  /** The backward passes' group sums (product-tables.ts); a grouping is known by its id here. */
  private readonly groupSums: GroupSums<GroupsSpec>;

  constructor(private readonly init: ShardInit) {
    const { buffers, shape } = init;
    this.rows = shape.rows;
    this.layout = shape.layout;
    this.control = new Int32Array(init.control);
    this.values = new Float64Array(buffers.values);
    this.grad = new Float64Array(buffers.grad);
    this.groupSums = new GroupSums<GroupsSpec>(shape.rows, (g) => g.id);
    const m = new Float64Array(buffers.m);
    const v = new Float64Array(buffers.v);
    this.adam = {
      m,
      v,
      t: 0,
      reset() {
        m.fill(0);
        v.fill(0);
      },
    };
    this.rowStarts = new Int32Array(buffers.rowStarts);
    this.categories = new Int32Array(buffers.categories);
    this.entries = new Float64Array(buffers.entries);
    this.deviations = new Float64Array(buffers.deviations);
  }

  run(cmd: ShardCommand): void {
    switch (cmd.type) {
      case 'project':
        this.project(cmd.features, cmd.project, cmd.adam);
        return;
      case 'forward':
        this.forward(cmd.tasks, new Float64Array(cmd.exchange));
        return;
      case 'backward':
        this.backward(cmd.tasks, new Float64Array(cmd.exchange));
        return;
      case 'adam':
        this.adamStep(cmd.constants, cmd.ranges);
        return;
    }
  }

  /** The next task index from the shared counter (each index goes to exactly one thread). */
  private take(): number {
    return Atomics.add(this.control, CONTROL.next, 1);
  }

  private project(features: readonly number[], project: boolean, adam?: AdamWork): void {
    this.sparseView = undefined;
    this.grouped.clear();
    const { rows, layout } = this;
    for (let at = this.take(); at < features.length; at = this.take()) {
      const j = features[at];
      const size = layout.sizes[j];
      const start = layout.offsets[j] * rows;
      // The step's elements in this block, then its projection while they are in cache (Adam
      // is per element: any split gives the same numbers).
      if (adam) {
        const { ranges, constants } = adam;
        for (let r = 0; r < ranges.length; r += 2) {
          const lo = Math.max(ranges[r], start);
          const hi = Math.min(ranges[r + 1], start + size * rows);
          if (hi > lo) adamRange(this.values, this.grad, this.adam, constants, lo, hi);
        }
      }
      this.deviations[j] = projectBlockToSparse(this.values, rows, start, size, project, {
        rowStart: this.rowStarts.subarray(j * (rows + 1), (j + 1) * (rows + 1)),
        category: this.categories.subarray(start, start + size * rows),
        value: this.entries.subarray(start, start + size * rows),
      });
    }
  }

  /** The sparse rows of D' (valid once every thread has finished the last projection). */
  sparse(): SparseRows {
    if (this.sparseView) return this.sparseView;
    const { rows, layout } = this;
    let deviation = 0;
    const blocks = layout.sizes.map((_, j): SparseBlock => {
      deviation = Math.max(deviation, this.deviations[j]);
      const rowStart = this.rowStarts.subarray(j * (rows + 1), (j + 1) * (rows + 1));
      const start = layout.offsets[j] * rows;
      const nnz = rowStart[rows];
      return {
        rowStart,
        category: this.categories.subarray(start, start + nnz),
        value: this.entries.subarray(start, start + nnz),
      };
    });
    this.sparseView = { rows, blocks, simplexDeviation: deviation };
    return this.sparseView;
  }

  /**
   * A table's answers: the threshold's (typed.ts thresholdAnswers), or a grouped marginal's table.
   * A (grouped) marginal's answers are its product table, written straight into `out` when given.
   */
  answers(task: Omit<ForwardTask, 'out'>, out?: Float64Array): Float64Array {
    const sp = this.sparse();
    const grouped = task.grouping ? this.grouped.rows(sp, task.threshold.features, task.grouping) : undefined;
    return passAnswers(sp, this.layout, task.threshold, this.dimsOf(task), grouped, out);
  }

  /** The dims of a task's table: its features' sizes, or their groups' counts where grouped. */
  private dimsOf(task: Omit<ForwardTask, 'out'>): number[] {
    return task.threshold.features.map((f, j) => task.grouping?.[j]?.count ?? this.layout.sizes[f]);
  }

  private forward(tasks: readonly ForwardTask[], exchange: Float64Array): void {
    for (let at = this.take(); at < tasks.length; at = this.take()) {
      const task = tasks[at];
      this.answers(task, exchange.subarray(task.out, task.out + tableSize(this.dimsOf(task))));
    }
  }

  private backward(tasks: readonly BackwardTask[], exchange: Float64Array): void {
    const sp = this.sparse();
    const [first, end] = rowRange(this.rows, this.init.thread, this.init.threads);
    if (first === end) return;
    const sums = this.groupSums.forPass(
      tasks.flatMap((task) =>
        task.kind === 'grouped'
          ? [{ features: task.features, groups: task.grouping.map((g) => g ?? undefined) }]
          : [],
      ),
    );
    for (const task of tasks) {
      if (task.kind === 'plain') {
        const terms = task.terms.map((term) => ({
          ...term,
          G: exchange.subarray(term.g, term.g + term.length),
        }));
        backpropTerms(sp, this.layout, terms, this.grad, first, end);
      } else {
        const grouped = this.grouped.rows(sp, task.features, task.grouping);
        const G = exchange.subarray(task.g, task.g + task.length);
        const cotangent = { features: task.dims.map((_, j) => j), dims: task.dims, G, scale: task.scale };
        const groupOf = task.grouping.map((g) => g?.of);
        backpropGrouped(grouped, this.layout, task.features, groupOf, cotangent, this.grad, first, end, sums);
      }
    }
    this.groupSums.handOver(sums, this.grad, this.layout, first, end);
  }

  /** This thread's elements of the index ranges (pairs [start, end)). */
  private adamStep(constants: AdamStepConstants, ranges: readonly number[]): void {
    let total = 0;
    for (let r = 0; r < ranges.length; r += 2) total += ranges[r + 1] - ranges[r];
    const [from, to] = rowRange(total, this.init.thread, this.init.threads);
    let seen = 0;
    for (let r = 0; r < ranges.length; r += 2) {
      const start = ranges[r];
      const length = ranges[r + 1] - start;
      const lo = Math.max(from - seen, 0);
      const hi = Math.min(to - seen, length);
      if (hi > lo) adamRange(this.values, this.grad, this.adam, constants, start + lo, start + hi);
      seen += length;
    }
    this.sparseView = undefined;
    this.grouped.clear();
  }
}
