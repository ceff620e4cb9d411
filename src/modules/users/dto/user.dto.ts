import { ApiProperty } from '@nestjs/swagger';

/** A user on the wire. */
export class UserDto {
  @ApiProperty({ format: 'uuid', description: 'Identifier of the user.' })
  user_id: string;

  @ApiProperty({ description: 'Login name, trimmed, in NFC; unique in the organization by Unicode case folding.', example: 'ann.lee' })
  user_name: string;

  @ApiProperty({ type: String, nullable: true, description: 'Name shown for the user.', example: 'Ann Lee' })
  display_name: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Ann' })
  given_name: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Lee' })
  family_name: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Mail address (addr-spec); not unique.', example: 'ann.lee@example.com' })
  email: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'Identifier in the source system, unique within the organization.', example: 'emp-1001' })
  external_id: string | null;

  @ApiProperty({ description: 'Whether the user is active.' })
  active: boolean;

  @ApiProperty({ type: [String], format: 'uuid', description: 'The departments the user belongs to, in the order the memberships were added.' })
  department_ids: string[];

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'One of department_ids; null only when department_ids is empty.' })
  primary_department_id: string | null;

  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 1,
    description: '1 at creation, +1 per change (memberships included). The ETag is this revision in quotes; send it as If-Match, or the revision as expected_revision, to change exactly what you read.',
  })
  revision: number;

  @ApiProperty({ format: 'date-time', description: 'When the user was created (UTC).' })
  created_at: string;

  @ApiProperty({ format: 'date-time', description: 'When the user last changed (UTC); its creation time until then.' })
  updated_at: string;
}
