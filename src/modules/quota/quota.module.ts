import { Module } from '@nestjs/common';
import type { ModuleDefinitions } from '../../common/registries/registries';
import { MeteringPolicyController } from './metering-policy.controller';
import { MeteringPolicyService } from './metering-policy.service';
import { SubscriptionsRepository } from './subscriptions.repository';
import { QuotaAudit } from './quota.audit';
import { QuotaScopeDefinitions } from './quota.scopes';

@Module({ controllers: [MeteringPolicyController], providers: [MeteringPolicyService, SubscriptionsRepository] })
export class QuotaModule {
  /** Its audit action is written only by the admin CLI (docs/audit.md). */
  static readonly definitions: ModuleDefinitions = { scopes: QuotaScopeDefinitions, auditActions: QuotaAudit };
}
