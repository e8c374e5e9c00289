/**
 * A finished release's output between the run and its publication (the app keeps it in its
 * result store): it is exported once, or discarded; the budget was spent when it was reserved,
 * so neither path gives any back. The rules of both paths live here, the storage in the caller.
 */
import { InputError } from '../errors.ts';

/** Where a run's output stands, as far as exporting it goes. */
export type OutputStage<Kept, Outcome> =
  | { readonly status: 'finished'; readonly kept: Kept | null }
  | { readonly status: 'exported'; readonly outcome: Outcome }
  | { readonly status: 'not-finished' };

export interface ExportSteps<Kept, Outcome> {
  /** Keeps an output the store could not take when the run finished; null if it still cannot. */
  keep(): Promise<Kept | null>;
  /** The refusal when the output cannot be kept (the synthetic data was not written). */
  notKept(): Error;
  /** Stage 5: the files written, the ledger committed (core/release/publish.ts). */
  publish(kept: Kept): Promise<Outcome>;
}

/**
 * Exports a run's output once: an exported run answers with its earlier outcome (one file, whose
 * hash the ledger holds), an unfinished one is refused, a finished one is kept if it was not yet,
 * then published. `first` says whether this call exported it.
 */
export async function exportOutput<Kept, Outcome>(
  stage: OutputStage<Kept, Outcome>,
  steps: ExportSteps<Kept, Outcome>,
): Promise<{ readonly outcome: Outcome; readonly first: boolean }> {
  if (stage.status === 'exported') return { outcome: stage.outcome, first: false };
  if (stage.status !== 'finished') {
    throw new InputError(
      'This run has no synthetic data to export: it has not finished. Export a finished run.',
    );
  }
  const kept = stage.kept ?? (await steps.keep());
  if (kept === null) throw steps.notKept();
  return { outcome: await steps.publish(kept), first: true };
}

/** The reason the ledger records for a release whose output the curator discarded. */
export const DISCARD_REASON = 'output discarded by the curator';

export interface DiscardSteps {
  /** Removes the kept output. */
  remove(releaseId: string): Promise<void>;
  /** Ends the reserved release in the ledger (its spend stays counted). */
  abort(releaseId: string, reason: string): Promise<void>;
}

/**
 * Discards a kept, unexported output: the files go first, then the ledger ends the release. An
 * exported release has nothing to discard. The budget stays spent either way, and the message
 * says so.
 */
export async function discardOutput(
  kept: { readonly releaseId: string; readonly exported: boolean },
  steps: DiscardSteps,
): Promise<{ readonly releaseId: string; readonly message: string }> {
  if (kept.exported) {
    throw new InputError(`Release ${kept.releaseId} was exported already: there is nothing to discard.`);
  }
  await steps.remove(kept.releaseId);
  try {
    await steps.abort(kept.releaseId, DISCARD_REASON);
  } catch {
    // already ended in the ledger: the spend is counted either way
  }
  return {
    releaseId: kept.releaseId,
    message: `The synthetic data of release ${kept.releaseId} was discarded. Its privacy budget stays spent: the ledger keeps counting it.`,
  };
}
