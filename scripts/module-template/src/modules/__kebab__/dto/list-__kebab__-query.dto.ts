import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { PageSize } from '../../../common/pagination/page-size';
import { Optional } from '../../../common/validation/fields';

/** Query of GET /__kebab__: every parameter the list reads is declared here (an undeclared one is refused). */
export class List__Plural__QueryDto {
  @PageSize()
  page_size?: number;

  @ApiPropertyOptional({ description: "The previous answer's next_page_token; absent for the first page." })
  @Optional()
  @IsString()
  page_token?: string;
}
