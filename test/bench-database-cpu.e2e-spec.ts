import { Client } from 'pg';
import { backendCpu, backendCpuUsed } from '../bench/database-cpu';
import { testDatabaseUrl } from './support/test-app';

describe('bench: PostgreSQL CPU per database', () => {
  it('counts a backend that started between the readings wholly and leaves out one that ended', () => {
    const before = new Map([
      [10, 5_000],
      [11, 7_000],
    ]);
    const after = new Map([
      [10, 8_000],
      [12, 2_000],
    ]);
    expect(backendCpuUsed(before, after)).toBe(3_000 + 2_000);
  });

  const url = testDatabaseUrl();
  (url ? it : it.skip)('reads the CPU of the backends serving one database, the work of one of them included', async () => {
    const database = decodeURIComponent(new URL(url!).pathname.slice(1));
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const before = await backendCpu(url!, database);
      await client.query('SELECT count(*) FROM generate_series(1, 5000000)');
      const after = await backendCpu(url!, database);
      expect(before?.has(rows[0].pid)).toBe(true);
      expect(after!.get(rows[0].pid)! - before!.get(rows[0].pid)!).toBeGreaterThan(0);
      expect(backendCpuUsed(before!, after!)).toBeGreaterThanOrEqual(after!.get(rows[0].pid)! - before!.get(rows[0].pid)!);
    } finally {
      await client.end();
    }
  });
});
