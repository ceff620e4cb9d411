import { Client, type QueryConfig } from 'pg';

/**
 * A connection that sends every statement unnamed, as the service does with
 * DATABASE_PREPARED_STATEMENTS=0: behind a pooler in transaction mode that does not keep prepared
 * statements (PgBouncer before 1.21), a statement prepared on one server connection is not there on
 * the next. The lean's queries name their statements; this drops the names.
 */
export class UnnamedStatementsClient extends Client {
  override query(...args: any[]): any {
    const [config, ...rest] = args;
    if (typeof config === 'object' && config !== null && typeof (config as QueryConfig).name === 'string' && typeof config.submit !== 'function') {
      const { name: _name, ...unnamed } = config as QueryConfig;
      return (super.query as (...forwarded: any[]) => any)(unnamed, ...rest);
    }
    return (super.query as (...forwarded: any[]) => any)(...args);
  }
}
