import { Module } from '@nestjs/common';
import { AuditEventsController } from './audit-events.controller';
import { AuditEventsService } from './audit-events.service';
import { AuditPurger } from './audit-purger';

@Module({ controllers: [AuditEventsController], providers: [AuditEventsService, AuditPurger] })
export class AuditEventsModule {}
