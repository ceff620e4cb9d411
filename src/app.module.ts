import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AuditModule } from './common/audit/audit.module';
import { AuthModule } from './common/auth/auth.module';
import { ClockModule } from './common/clock';
import { ReadinessModule } from './common/lifecycle/readiness';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter';
import { ErrorCode } from './common/errors/error-code';
import { REVISION_CONFLICT } from './common/http/write-preconditions';
import { IdempotencyModule } from './common/idempotency/idempotency.module';
import { createAppLogger } from './common/logging/app-logger';
import { LoggingModule } from './common/logging/logging.module';
import { MetricsModule } from './common/metrics/metrics.module';
import { collectRegistries, moduleDefinitionSource, type DefinitionSource, type Registries } from './common/registries/registries';
import { RegistriesModule } from './common/registries/registries.module';
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
import { ScimModule } from './modules/scim/scim.module';

export interface AppModuleOptions {
  config: AppConfig;
  /** An already open database shared with the caller (tests with two app instances). */
  database?: Database;
  /** Further feature modules to mount beside the built-in ones. */
  extraModules?: Array<Type | DynamicModule>;
  /** Where log lines go instead of stdout (tests read them). */
  logDestination?: DestinationStream;
}

/** The modules every application mounts, after the infrastructure; each declares its scopes, error codes and audit actions in `static definitions`. */
const FEATURE_MODULES: Array<Type | DynamicModule> = [
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
  ScimModule,
];

/** The codes of the global layers (the error filter, the guards, the write preconditions), which no module owns. */
const GLOBAL_LAYERS: DefinitionSource = { name: 'the global layers', definitions: { errors: { ...ErrorCode, REVISION_CONFLICT } } };

/**
 * The registries of an application mounting `extraModules` beside the built-in ones; a name defined
 * twice throws. A module mounted twice counts once, as Nest mounts it once.
 */
export function applicationRegistries(extraModules: ReadonlyArray<Type | DynamicModule> = []): Registries {
  const sources = new Map([...FEATURE_MODULES, ...extraModules].map((module) => moduleDefinitionSource(module)).map((source) => [source.module, source]));
  return collectRegistries([GLOBAL_LAYERS, ...sources.values()]);
}

/**
 * The registries of the built-in modules, collected once when this file loads: what the admin CLI,
 * the demo seed and AdminService use, as they run without the Nest application.
 */
export const APP_REGISTRIES = applicationRegistries();

@Module({})
export class AppModule {
  static forRoot({ config, database, extraModules = [], logDestination }: AppModuleOptions): DynamicModule {
    const registries = extraModules.length === 0 ? APP_REGISTRIES : applicationRegistries(extraModules);
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
        RegistriesModule.forRoot(registries),
        ...FEATURE_MODULES,
        ...extraModules,
      ],
      providers: [
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useClass: BodyValidationPipe },
      ],
    };
  }
}
