import { Client, type QueryResult } from 'pg';
import { PipelinedClient } from '../src/database/pipelined-client';
import { testConfig } from './support/test-app';

const url = testConfig().DATABASE_URL;
const onPostgres = url !== undefined;

async function openClient(): Promise<PipelinedClient> {
  const client = new PipelinedClient({ connectionString: url, statementTimeoutMs: 5000 });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

async function backendOf(client: Client): Promise<number> {
  return (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
}

(onPostgres ? describe : describe.skip)('PipelinedClient: a pooled connection (PostgreSQL)', () => {
  let admin: Client;

  beforeAll(async () => {
    admin = new Client({ connectionString: url });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
  });

  it('answers BEGIN at once and runs the statement sent behind it inside that transaction', async () => {
    const client = await openClient();
    try {
      const begun = await client.query('BEGIN');
      expect(begun.command).toBe('BEGIN');
      const inside: QueryResult<{ status: string }> = await client.query({ text: 'SELECT $1::text AS status', values: ['inside'] });
      expect(inside.rows).toEqual([{ status: 'inside' }]);
      // Only inside a transaction block does SAVEPOINT succeed.
      await expect(client.query('SAVEPOINT checked')).resolves.toMatchObject({ command: 'SAVEPOINT' });
      await client.query('ROLLBACK');
      await expect(client.query('SAVEPOINT outside')).rejects.toMatchObject({ code: '25P01' });
    } finally {
      await client.end();
    }
  });

  it("is in pg's pipeline mode: statements sent back to back are answered in order, each on its own", async () => {
    const client = await openClient();
    try {
      expect(client.pipeline).toBe(true);
      const answers = await Promise.allSettled([
        client.query({ text: 'SELECT $1::int AS i', values: [1] }),
        client.query({ text: 'SELECT 1 / $1::int AS fails', values: [0] }),
        client.query({ text: 'SELECT $1::int AS i', values: [3] }),
      ]);
      expect(answers.map((answer) => (answer.status === 'fulfilled' ? answer.value.rows[0] : (answer.reason as { code: string }).code))).toEqual([{ i: 1 }, '22012', { i: 3 }]);
    } finally {
      await client.end();
    }
  });

  // BEGIN is answered before the server has: even on a connection that is gone.
  it('answers BEGIN without waiting for the server, and fails the statement sent behind it when the connection broke', async () => {
    const client = await openClient();
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [await backendOf(client)]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const begun = client.query('BEGIN');
      const behind = client.query('SELECT 1::int AS one');
      await expect(begun).resolves.toMatchObject({ command: 'BEGIN' });
      await expect(behind).rejects.toBeDefined();
    } finally {
      await client.end().catch(() => undefined);
    }
  });
});
