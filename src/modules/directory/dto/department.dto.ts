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
    minimum: 0,
    description:
      'Sort value among its siblings: assigned by the server as the next after the largest sibling order (first child: 1), ' +
      'or set by PATCH. Siblings may tie; lists order by order, then department_id.',
    example: 1,
  })
  order: number;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Parent department; null for a top-level one.' })
  parent_id: string | null;

  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 1,
    description: '1 at creation, +1 per change. The ETag is this revision in quotes; send it as If-Match, or the revision as expected_revision, to change exactly what you read.',
    example: 1,
  })
  revision: number;

  @ApiProperty({ format: 'date-time', description: 'When the department was created (UTC).' })
  created_at: string;

  @ApiProperty({ format: 'date-time', description: 'When the department last changed (UTC): a rename, move, reorder or external_id; its creation time until then. Moving an ancestor does not change it.' })
  updated_at: string;
}
