/**
 * One way to make a running query cancellable: an abort calls the engine's interrupt (DuckDB's
 * `interrupt()`, PostgreSQL's `pg_cancel_backend` from a second connection), and once aborted the
 * abort is what the caller sees, whatever error the interrupted query threw.
 */
export async function interruptibly<T>(
  signal: AbortSignal | undefined,
  interrupt: () => void,
  job: () => Promise<T>,
): Promise<T> {
  signal?.throwIfAborted();
  signal?.addEventListener('abort', interrupt, { once: true });
  try {
    const out = await job();
    signal?.throwIfAborted();
    return out;
  } catch (err) {
    signal?.throwIfAborted();
    throw err;
  } finally {
    signal?.removeEventListener('abort', interrupt);
  }
}
