/**
 * The Data step's database source: a PostgreSQL table or one read-only query, described by its
 * columns and their types from the catalogue (public metadata, like a CSV's header; no row read).
 *
 * The password the curator types reaches only the connection: it is tied to the source object in
 * memory (core/counting/postgres.ts withPassword), never a property of anything this service
 * returns, stores or logs; a URL holding one is refused (the URL is what gets named). The argument
 * is not logged by the hosts (dispatch.ts's callers log internal errors only).
 */
import {
  describeColumns,
  parsePostgresSource,
  withPassword,
  withPostgres,
} from '../core/counting/postgres.ts';
import { parsePostgresQuerySource } from '../core/counting/postgres-query.ts';
import { InputError } from '../core/errors.ts';
import type { DatabaseSourceArg, DatabaseSourceView } from '../shared/api.ts';
import type { Services } from './api-services.ts';
import { databaseColumnView } from './database-schema.ts';

export type DatabaseService = Pick<Services, 'describeDatabase'>;

/** The source the curator named, with its password attached in memory only. */
export function databaseSource(arg: DatabaseSourceArg) {
  const url = arg.url.trim();
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    throw new InputError('The database must be a PostgreSQL URL: postgres://[user@]host[:port]/database.', {
      field: 'url',
    });
  }
  if ((arg.table === undefined) === (arg.sql === undefined)) {
    throw new InputError('Name a table, or give one SELECT query: one of the two.', { field: 'table' });
  }
  if (arg.table !== undefined && url.includes('?')) {
    throw new InputError('Give the database URL without "?…": the table goes in its own field.', {
      field: 'url',
    });
  }
  const src =
    arg.sql !== undefined
      ? parsePostgresQuerySource(url, arg.sql)
      : parsePostgresSource(`${url}?table=${encodeURIComponent(arg.table!.trim())}`);
  return arg.password ? withPassword(src, arg.password) : src;
}

export function databaseService(): DatabaseService {
  return {
    async describeDatabase(arg): Promise<DatabaseSourceView> {
      const src = databaseSource(arg);
      const columns = await withPostgres(src, (client) => describeColumns(client, src));
      return {
        kind: src.query === undefined ? 'table' : 'query',
        location: src.location,
        columns: columns.map(databaseColumnView),
      };
    },
  };
}
