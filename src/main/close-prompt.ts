/**
 * What closing the window asks, as a plain function (unit-tested; Electron cannot launch here).
 * A run in progress is cancelled by closing (its spend stays counted); a finished release that
 * has not been exported stays in the result store and is listed again at the next start — the
 * prompt says both, so the curator never believes a paid-for release is lost or safe when it is
 * not.
 */
export interface CloseState {
  /** A run is reserving, loading or running. */
  readonly active: boolean;
  /** Finished releases not exported yet (kept in the result store). */
  readonly unexported: number;
}

export interface ClosePrompt {
  readonly title: string;
  readonly message: string;
  readonly detail: string;
  /** buttons[0] keeps the window open; buttons[1] closes. */
  readonly buttons: readonly [string, string];
}

/** null: close without asking. */
export function closePrompt(state: CloseState): ClosePrompt | null {
  if (!state.active && state.unexported === 0) return null;
  const kept =
    state.unexported === 1
      ? 'One finished release has not been exported. It is kept and listed on the Export step when RAP Studio starts again.'
      : `${state.unexported} finished releases have not been exported. They are kept and listed on the Export step when RAP Studio starts again.`;
  if (state.active) {
    return {
      title: 'A run is in progress',
      message: 'A run is in progress. Closing cancels it; its privacy spend stays counted in the ledger.',
      detail: state.unexported > 0 ? kept : '',
      buttons: ['Keep running', 'Cancel the run and close'],
    };
  }
  return {
    title: 'Releases not exported',
    message: kept,
    detail: 'Their privacy budget is spent either way; export them to publish what was paid for.',
    buttons: ['Stay', 'Close'],
  };
}
