import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { PageSize } from '../../../common/pagination/page-size';
import { LowerCaseUuid } from '../../../common/validation/string-rules';
import { SUITE_STATUSES } from '../suite-status';

/** Query of GET /expert-suites: the organization's suites, filtered, page by page. */
export class ListExpertSuitesQueryDto {
  @ApiPropertyOptional({ enum: SUITE_STATUSES, description: 'Only suites with this status.' })
  @IsOptional()
  @IsIn(SUITE_STATUSES)
  status?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: "Only suites whose market entry has this category (a uuid in any case). Another organization's category matches nothing.",
  })
  @IsOptional()
  @IsString()
  @LowerCaseUuid()
  category_id?: string;

  @PageSize()
  page_size?: number;

  @ApiPropertyOptional({ description: "The previous answer's next_page_token, with the same filters; absent for the first page." })
  @IsOptional()
  @IsString()
  page_token?: string;
}
