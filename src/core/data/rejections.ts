/**
 * Rows left out of a dataset, counted by reason. Nothing is dropped silently: every rejected row
 * is counted here and the load summary lists the counts. Reasons name the column, never a value
 * (values are private).
 */

export interface RejectedRows {
  readonly reason: string;
  readonly count: number;
  /** Line of the first row rejected for this reason, so the curator can look at it. */
  readonly firstLine: number;
}

export class Rejections {
  private readonly byReason = new Map<string, { count: number; firstLine: number }>();
  private rows = 0;

  add(reason: string, line: number): void {
    this.rows++;
    const entry = this.byReason.get(reason);
    if (entry) entry.count++;
    else this.byReason.set(reason, { count: 1, firstLine: line });
  }

  get total(): number {
    return this.rows;
  }

  /** Reasons in the order they first occurred. */
  list(): RejectedRows[] {
    return [...this.byReason].map(([reason, e]) => ({ reason, count: e.count, firstLine: e.firstLine }));
  }
}
