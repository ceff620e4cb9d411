import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { PageSize } from '../../../common/pagination/page-size';
import { Optional, TextField, UuidField } from '../../../common/validation/fields';
import { PAGE_TOKEN_EXAMPLE } from './department-page.dto';

/** Query of GET /departments: the children of one parent, page by page, or one department by external_id. */
export class ListDepartmentsQueryDto {
  @UuidField({ description: 'List the children of this department (a uuid in any case). Absent: the top-level departments.' })
  parent_id?: string;

  @TextField({
    maxLength: 512,
    description:
      'Find the department with this source-system id anywhere in the tree: a list of zero or one. Cannot be combined ' +
      'with parent_id or page_token.',
    example: 'hr-4711',
  })
  external_id?: string;

  @PageSize()
  page_size?: number;

  @ApiPropertyOptional({
    description: "The previous answer's next_page_token, with the same parent_id; absent for the first page.",
    example: PAGE_TOKEN_EXAMPLE,
  })
  @Optional()
  @IsString()
  page_token?: string;
}
