import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import { IsString } from 'class-validator';
import { CurrentPrincipal, type Principal } from '../../src/common/auth/principal';
import { Public, RequireScope } from '../../src/common/auth/auth.decorators';
import { Scope } from '../../src/common/auth/scopes';
import { MaxCodePoints, Required } from '../../src/common/validation/field-rules';

export class ProbeBodyDto {
  @Required()
  @IsString()
  @MaxCodePoints(5)
  text: string;
}

/** Routes that exercise the cross-cutting pieces without depending on a feature module. */
@Controller('probe')
export class ProbeController {
  @Get('quota-read')
  @RequireScope(Scope.QuotaRead)
  quotaRead(@CurrentPrincipal() principal: Principal) {
    return { organization_id: principal.organizationId };
  }

  @Post('directory-manage')
  @RequireScope(Scope.DirectoryManage)
  directoryManage(@Body() body: ProbeBodyDto) {
    return { text: body.text };
  }

  @Get('undeclared')
  undeclared() {
    return { reached: true };
  }

  @Public()
  @Get('boom')
  boom(): never {
    throw new Error('connection to 10.1.2.3 failed: password authentication failed for user "secret_user"');
  }
}

@Module({ controllers: [ProbeController] })
export class ProbeModule {}
