import { Client } from 'pg';
import { UnnamedStatementsClient } from '../bench/lean/unnamed-statements';
import { testDatabaseUrl } from './support/test-app';

const url = testDatabaseUrl();

async function preparedStatementNames(client: Client): Promise<string[]> {
  return (await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).rows.map((row) => row.name);
}

(url ? describe : describe.skip)('bench: the lean baseline behind a pooler sends its named statements unnamed (PostgreSQL)', () => {
  it('leaves no prepared statement on its connection, where a plain client leaves the named one', async () => {
    const unnamed = new UnnamedStatementsClient({ connectionString: url });
    const named = new Client({ connectionString: url });
    await Promise.all([unnamed.connect(), named.connect()]);
    try {
      const statement = { name: 'lean-check', text: 'SELECT $1::int + 1 AS n', values: [41] };
      expect((await unnamed.query(statement)).rows).toEqual([{ n: 42 }]);
      expect((await named.query<{ n: number }>(statement)).rows).toEqual([{ n: 42 }]);
      expect(await preparedStatementNames(unnamed)).toEqual([]);
      expect(await preparedStatementNames(named)).toEqual(['lean-check']);
    } finally {
      await Promise.all([unnamed.end(), named.end()]);
    }
  });
});
