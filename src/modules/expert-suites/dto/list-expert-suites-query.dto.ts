import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { PageSize } from '../../../common/pagination/page-size';
import { EnumField, Optional, UuidField } from '../../../common/validation/fields';
import { SUITE_STATUSES } from '../suite-status';

/** Query of GET /expert-suites: the organization's suites, filtered, page by page. */
export class ListExpertSuitesQueryDto {
  @EnumField({ values: SUITE_STATUSES, description: 'Only suites with this status.' })
  status?: string;

  @UuidField({ description: "Only suites whose market entry has this category (a uuid in any case). Another organization's category matches nothing." })
  category_id?: string;

  @PageSize()
  page_size?: number;

  @ApiPropertyOptional({ description: "The previous answer's next_page_token, with the same filters; absent for the first page." })
  @Optional()
  @IsString()
  page_token?: string;
}
