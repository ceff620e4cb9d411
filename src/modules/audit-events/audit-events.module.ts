import { Module } from '@nestjs/common';
import { AuditEventsController } from './audit-events.controller';
import { AuditEventsService } from './audit-events.service';
import { AuditEventsRepository } from './audit-events.repository';
import { AuditPurger } from './audit-purger';

@Module({ controllers: [AuditEventsController], providers: [AuditEventsService, AuditEventsRepository, AuditPurger] })
export class AuditEventsModule {}
