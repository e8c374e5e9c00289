/**
 * The app's typed password (postgres.ts withPassword) reaches the connection, and only the
 * connection of the source it was given for: the client's configuration is captured by a stand-in
 * for the pg module (the CI cluster trusts loopback, so a real server would not tell).
 */
import { describe, expect, it, vi } from 'vitest';

const configs: Record<string, unknown>[] = [];
vi.mock('pg', () => ({
  default: {
    Client: class {
      constructor(config: Record<string, unknown>) {
        configs.push(config);
      }
      async connect() {
        throw new Error('stand-in: no server');
      }
    },
  },
}));

const { parsePostgresSource, withPassword, withPostgres } = await import('./postgres.ts');

describe('a typed password, in memory only', () => {
  it('is given to the client for its source, not for the source it was copied from', async () => {
    const plain = parsePostgresSource('postgres://ann@db.example/hospital?table=visits');
    const typed = withPassword(plain, 'typed-pw-4');
    await expect(withPostgres(typed, async () => 0)).rejects.toThrow('cannot connect');
    await expect(withPostgres(plain, async () => 0)).rejects.toThrow('cannot connect');
    expect(configs[0]).toMatchObject({
      user: 'ann',
      host: 'db.example',
      database: 'hospital',
      password: 'typed-pw-4',
    });
    // Without it, the client reads PGPASSWORD or ~/.pgpass itself.
    expect(configs[1]).not.toHaveProperty('password');
    expect(JSON.stringify(typed)).not.toContain('typed-pw-4');
  });
});
