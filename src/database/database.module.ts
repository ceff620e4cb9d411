import { DynamicModule, Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { Database, openDatabase } from './database';
import { DatabaseNotifications } from './database-notifications';
import { DatabasePing } from './database-ping';
import { DatabasePool } from './database-pool';
import { DatabaseReplica } from './database-replica';
import { DatabaseOutageLog } from './outage-log';
import { SqlDriver } from './sql-driver';
import { SqlHost } from './sql-host';
import { TransactionHost } from './transaction-host';

const DATABASE = Symbol('DATABASE');
const OWNS_DATABASE = Symbol('OWNS_DATABASE');

class DatabaseLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(DATABASE) private readonly database: Database,
    @Inject(OWNS_DATABASE) private readonly ownsDatabase: boolean,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.ownsDatabase) await this.database.close();
  }
}

@Global()
@Module({})
export class DatabaseModule {
  /**
   * With `database` given (tests running two app instances on one database) the caller owns it;
   * otherwise the module opens the configured database, migrates the embedded one, and closes it.
   */
  static forRoot(database?: Database): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: DATABASE,
          inject: [AppConfig],
          useFactory: async (config: AppConfig) => database ?? openAndPrepare(config),
        },
        { provide: OWNS_DATABASE, useValue: database === undefined },
        { provide: SqlDriver, inject: [DATABASE], useFactory: (db: Database) => db.sql },
        { provide: DatabaseNotifications, useExisting: DATABASE },
        { provide: DatabasePool, useExisting: DATABASE },
        { provide: DatabasePing, useExisting: DATABASE },
        { provide: DatabaseReplica, useExisting: DATABASE },
        DatabaseLifecycle,
        TransactionHost,
        { provide: SqlHost, useExisting: TransactionHost },
        DatabaseOutageLog,
      ],
      exports: [SqlDriver, TransactionHost, SqlHost, DatabaseOutageLog, DatabaseNotifications, DatabasePool, DatabasePing, DatabaseReplica],
    };
  }
}

async function openAndPrepare(config: AppConfig): Promise<Database> {
  const database = await openDatabase(config);
  if (database.kind === 'embedded') {
    // The embedded database belongs to this process alone, so it is brought up to date here;
    // a shared PostgreSQL is migrated as a release step (`npm run db:migrate`).
    const applied = await database.migrate();
    if (applied.length > 0) new Logger('Database').log(`Applied migrations: ${applied.join(', ')}`);
  }
  return database;
}
