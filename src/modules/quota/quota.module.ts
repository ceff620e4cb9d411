import { Module } from '@nestjs/common';
import { MeteringPolicyController } from './metering-policy.controller';
import { MeteringPolicyService } from './metering-policy.service';
import { SubscriptionsRepository } from './subscriptions.repository';
// Its audit actions, written only by the admin CLI: defined when the application loads (docs/audit.md).
import './quota.audit';

@Module({ controllers: [MeteringPolicyController], providers: [MeteringPolicyService, SubscriptionsRepository] })
export class QuotaModule {}
