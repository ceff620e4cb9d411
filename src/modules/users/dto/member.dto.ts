import { ApiProperty } from '@nestjs/swagger';

/** A member of a department: the user's identity and state as the member list shows it. */
export class MemberDto {
  @ApiProperty({ format: 'uuid', description: 'Identifier of the user.' })
  user_id: string;

  @ApiProperty({ description: 'The user\'s user_name.' })
  user_name: string;

  @ApiProperty({ type: String, nullable: true, description: 'The user\'s display name; null when it has none.' })
  display_name: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The user\'s email address; null when it has none.' })
  email: string | null;

  @ApiProperty({ description: 'Whether the user is active.' })
  active: boolean;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The user\'s primary department (one of its memberships); null only when it has none.' })
  primary_department_id: string | null;

  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 1,
    description: 'The user\'s revision (its ETag in quotes): a membership added or removed is a change of the user.',
  })
  revision: number;
}
