import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { AuditStatements } from './audit-event';

/** The audit writers of every module, one per application (its statements' texts are fixed by DATABASE_NOTIFICATIONS). */
@Global()
@Module({
  providers: [{ provide: AuditStatements, inject: [AppConfig], useFactory: (config: AppConfig) => new AuditStatements(config.DATABASE_NOTIFICATIONS) }],
  exports: [AuditStatements],
})
export class AuditModule {}
