import { ApiProperty } from '@nestjs/swagger';
import { DepartmentDto } from './department.dto';

/** A page token as the API hands it out, shown in both places of the round trip. */
export const PAGE_TOKEN_EXAMPLE = 'WzEsIkp2V3dTb3pQaE1iT2dDVWlTSk5xQUEiLCIyMCIsIjZiMWY4ZjBlLTVjNDMtNGQ1NS05YTBlLTJmNmYzZjFiOWMxMSJd';

/** One page of departments. */
export class DepartmentPageDto {
  @ApiProperty({ type: [DepartmentDto], description: 'Ordered by order, then department_id.' })
  items: DepartmentDto[];

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass as page_token (with the same parent_id) for the next page; null on the last page.',
    example: PAGE_TOKEN_EXAMPLE,
  })
  next_page_token: string | null;
}

/** Departments that fit one answer (the ancestors of one: at most 31). */
export class DepartmentListDto {
  @ApiProperty({ type: [DepartmentDto], description: 'From the top level down.' })
  items: DepartmentDto[];
}
