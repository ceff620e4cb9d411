import { Module } from '@nestjs/common';
import { MeteringPolicyController } from './metering-policy.controller';
import { MeteringPolicyService } from './metering-policy.service';

@Module({ controllers: [MeteringPolicyController], providers: [MeteringPolicyService] })
export class QuotaModule {}
