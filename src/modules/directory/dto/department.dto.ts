import { ApiProperty } from '@nestjs/swagger';

/** A department on the wire (docs/directory.md). */
export class DepartmentDto {
  @ApiProperty({ format: 'uuid', description: 'Identifier of the department.' })
  department_id: string;

  @ApiProperty({ type: String, nullable: true, description: 'Identifier in the source system; null when none was given.' })
  external_id: string | null;

  @ApiProperty({ description: 'Department name, trimmed.' })
  name: string;

  @ApiProperty({
    type: 'integer',
    format: 'int64',
    description: 'Sort value among its siblings: the next after the largest sibling order (first child: 1).',
    example: 1,
  })
  order: number;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Parent department; null for a top-level one.' })
  parent_id: string | null;
}
