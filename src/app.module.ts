import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AuditModule } from './common/audit/audit.module';
import { AuthModule } from './common/auth/auth.module';
import { ClockModule } from './common/clock';
import { ReadinessModule } from './common/lifecycle/readiness';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { IdempotencyModule } from './common/idempotency/idempotency.module';
import { createAppLogger } from './common/logging/app-logger';
import { LoggingModule } from './common/logging/logging.module';
import { MetricsModule } from './common/metrics/metrics.module';
import { PeriodicJobsModule } from './common/scheduling/periodic-jobs';
import { BodyValidationPipe } from './common/validation/body-validation.pipe';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import type { DestinationStream } from 'pino';
import type { Database } from './database/database';
import { DatabaseModule } from './database/database.module';
import { AuditEventsModule } from './modules/audit-events/audit-events.module';
import { DirectoryModule } from './modules/directory/directory.module';
import { ExpertSuitesModule } from './modules/expert-suites/expert-suites.module';
import { HealthModule } from './modules/health/health.module';
import { QuotaModule } from './modules/quota/quota.module';
import { UploadsModule } from './modules/uploads/uploads.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';
import { UsersModule } from './modules/users/users.module';

export interface AppModuleOptions {
  config: AppConfig;
  /** An already open database shared with the caller (tests with two app instances). */
  database?: Database;
  /** Further feature modules to mount beside the built-in ones. */
  extraModules?: Array<Type | DynamicModule>;
  /** Where log lines go instead of stdout (tests read them). */
  logDestination?: DestinationStream;
}

@Module({})
export class AppModule {
  static forRoot({ config, database, extraModules = [], logDestination }: AppModuleOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(createAppLogger(config, logDestination)),
        MetricsModule,
        ClockModule,
        ReadinessModule,
        PeriodicJobsModule,
        DatabaseModule.forRoot(database),
        AuditModule,
        AuthModule,
        IdempotencyModule,
        HealthModule,
        DirectoryModule,
        ExpertSuitesModule,
        UploadsModule,
        QuotaModule,
        WebhooksModule,
        AuditEventsModule,
        UsersModule,
        ...extraModules,
      ],
      providers: [
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useClass: BodyValidationPipe },
      ],
    };
  }
}
