/**
 * How the private data will reach the engine, as the memory check before the reservation must
 * assume it: as exact tables (counted by DuckDB, or in a database: no row held, whatever n), or
 * as encoded rows (the streaming reader, which holds n × columns codes). The check
 * (engine/limits.ts assertRunFits) runs in prepare on the reader the release expects, and again
 * in validate with rows where the checks found that DuckDB cannot count after all (a row of
 * another width, another dialect): a file refused only when it must be held as rows.
 */
import type { RawSourcePlan } from '../discovery/raw-source.ts';
import type { DataForm, MachineMemory } from '../engine/limits.ts';
import { publicPlan } from '../engine/public-plan.ts';
import type { RapOptions } from '../engine/types.ts';
import type { Workload } from '../workload/types.ts';

/** Why the streaming reader counts where the curator's tooling asked for it (the bench, tests). */
export const STREAMING_ASKED = 'asked for';

/** The memory check's assumptions, kept from prepare for validate's second look. */
export interface MemoryCheck {
  /** The form the check in prepare assumed. */
  readonly form: DataForm;
  /** The machine it checked against (tests inject one; default this machine). */
  readonly machine?: MachineMemory;
}

/**
 * The form the engine's data takes, as known before any private value is read: exact tables for
 * a database source and for a raw file source, which DuckDB counts (every format, per row and per
 * person; unless the streaming reader is asked for); rows otherwise (every column declared: the
 * file is loaded and encoded).
 */
export function plannedDataForm(p: {
  readonly database: boolean;
  readonly raw: RawSourcePlan | null;
  readonly streamingAsked: boolean;
}): DataForm {
  if (p.database) return 'counted';
  return p.raw === null || p.streamingAsked ? 'rows' : 'counted';
}

/**
 * validate's second look: where the plan assumed counted data but the streaming reader will count
 * (`streaming` says why), the run must fit with the rows held; throws the check's InputError
 * (nothing reserved) where it does not.
 */
export function assertFitsStreamed(
  prepared: {
    readonly memory: MemoryCheck;
    readonly options: RapOptions;
    readonly raw: RawSourcePlan | null;
    readonly facts: { readonly rows: number };
    readonly spec: { readonly workload: Workload };
  },
  streaming: string | undefined,
): void {
  if (streaming === undefined || prepared.memory.form !== 'counted' || !prepared.raw) return;
  publicPlan(
    prepared.options,
    prepared.raw.provisional,
    prepared.facts.rows,
    prepared.spec.workload,
    prepared.memory.machine,
    'rows',
  );
}
