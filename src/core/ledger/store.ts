/** The state tables in SQLite: reads for the reducer, and applying its row changes. */
import type Database from 'better-sqlite3';
import {
  type AliasRow,
  type DatasetFileRow,
  type DatasetRow,
  type ReleaseRow,
  type RowChange,
  type StateReader,
  TABLE_KEYS,
  type TableName,
} from './state.ts';

type SqlValue = string | number | null;

export class SqlState implements StateReader {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  dataset(fingerprint: string): DatasetRow | undefined {
    return this.stmt('SELECT * FROM datasets WHERE fingerprint = ?').get(fingerprint) as
      | DatasetRow
      | undefined;
  }

  alias(fingerprint: string, name: string): AliasRow | undefined {
    return this.stmt('SELECT * FROM dataset_aliases WHERE fingerprint = ? AND name = ?').get(
      fingerprint,
      name,
    ) as AliasRow | undefined;
  }

  file(fingerprint: string): DatasetFileRow | undefined {
    return this.stmt('SELECT * FROM dataset_files WHERE fingerprint = ?').get(fingerprint) as
      | DatasetFileRow
      | undefined;
  }

  release(id: string): ReleaseRow | undefined {
    return this.stmt('SELECT * FROM releases WHERE id = ?').get(id) as ReleaseRow | undefined;
  }

  /**
   * Inserts the row, or updates only the columns that changed: the guard triggers reject any
   * UPDATE that so much as names an immutable column, so unchanged columns are left out.
   */
  apply(change: RowChange): void {
    const row = change.row as unknown as Record<string, SqlValue>;
    const keys = TABLE_KEYS[change.table];
    const where = keys.map((k) => `${k} = @${k}`).join(' AND ');
    const existing = this.stmt(`SELECT * FROM ${change.table} WHERE ${where}`).get(row) as
      | Record<string, SqlValue>
      | undefined;
    if (!existing) {
      const cols = Object.keys(row);
      this.stmt(
        `INSERT INTO ${change.table} (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`,
      ).run(row);
      return;
    }
    const changed = Object.keys(row).filter((c) => !keys.includes(c) && existing[c] !== row[c]);
    if (changed.length === 0) return;
    const set = changed.map((c) => `${c} = @${c}`).join(', ');
    this.stmt(`UPDATE ${change.table} SET ${set} WHERE ${where}`).run(row);
  }

  /** Every row of a state table, in a stable order. */
  all(table: TableName): Record<string, SqlValue>[] {
    const order = table === 'releases' ? 'reserve_event_id' : TABLE_KEYS[table].join(', ');
    return this.stmt(`SELECT * FROM ${table} ORDER BY ${order}`).all() as Record<string, SqlValue>[];
  }

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }
}
