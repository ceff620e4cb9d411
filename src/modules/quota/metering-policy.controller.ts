import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireScope, ServesDuringDatabaseOutage } from '../../common/auth/auth.decorators';
import { CurrentPrincipal, type Principal } from '../../common/auth/principal';
import { ApiErrorResponses } from '../../common/errors/api-error-responses.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { MeteringPolicyDto } from './dto/metering-policy.dto';
import { MeteringPolicyService } from './metering-policy.service';
import { QuotaScope } from './quota.scopes';

@ApiTags('Quota')
@Controller('api/openapi/v1/metering-policy')
export class MeteringPolicyController {
  constructor(private readonly meteringPolicy: MeteringPolicyService) {}

  @Get()
  @RequireScope(QuotaScope.Read)
  @ServesDuringDatabaseOutage()
  @ApiOperation({
    operationId: 'getMeteringPolicy',
    summary: 'Read metering policy',
    description:
      "Returns the organization's metering cycle mode and the time of the next usage reset. Answers may come from a " +
      'cache a few seconds old (`data_status: fresh`). While the database is unreachable a cached policy up to a ' +
      'configured age is returned with `data_status: stale` and the time it was read in `data_as_of`.',
  })
  @ApiOkResponse({ type: MeteringPolicyDto })
  @ApiErrorResponses([ErrorCode.SERVICE_UNAVAILABLE, 'The database is unreachable and no cached policy young enough exists.'])
  read(@CurrentPrincipal() principal: Principal): Promise<MeteringPolicyDto> {
    return this.meteringPolicy.read(principal.organizationId);
  }
}
