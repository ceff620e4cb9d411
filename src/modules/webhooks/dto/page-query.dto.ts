import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { PageSize } from '../../../common/pagination/page-size';
import { Optional } from '../../../common/validation/fields';

/** Query of the webhook lists (endpoints, deliveries): every parameter they read. */
export class WebhookPageQueryDto {
  @PageSize()
  page_size?: number;

  @ApiPropertyOptional({ description: "The previous answer's next_page_token; absent for the first page." })
  @Optional()
  @IsString()
  page_token?: string;
}
