import { Module } from '@nestjs/common';
import type { ModuleDefinitions } from '../../common/registries/registries';
import { AuditEventsController } from './audit-events.controller';
import { AuditEventsService } from './audit-events.service';
import { AuditEventsRepository } from './audit-events.repository';
import { AuditPurger } from './audit-purger';
import { AuditEventsScopeDefinitions } from './audit-events.scopes';

@Module({ controllers: [AuditEventsController], providers: [AuditEventsService, AuditEventsRepository, AuditPurger] })
export class AuditEventsModule {
  static readonly definitions: ModuleDefinitions = { scopes: AuditEventsScopeDefinitions };
}
