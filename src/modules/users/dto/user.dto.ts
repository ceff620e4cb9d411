import { ApiProperty } from '@nestjs/swagger';

/** A user on the wire. */
export class UserDto {
  @ApiProperty({ format: 'uuid', description: 'Identifier of the user.' })
  user_id: string;

  @ApiProperty({ description: 'Name of the user, trimmed.' })
  user_name: string;

  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 1,
    description: '1 at creation, +1 per change. The ETag is this revision in quotes; send it as If-Match, or the revision as expected_revision, to change exactly what you read.',
  })
  revision: number;

  @ApiProperty({ format: 'date-time', description: 'When the user was created (UTC).' })
  created_at: string;

  @ApiProperty({ format: 'date-time', description: 'When the user last changed (UTC); its creation time until then.' })
  updated_at: string;
}
