import { ApiProperty } from '@nestjs/swagger';

/** A __singular_words__ on the wire. */
export class __Singular__Dto {
  @ApiProperty({ format: 'uuid', description: 'Identifier of the __singular_words__.' })
  __singular_snake___id: string;

  @ApiProperty({ description: 'Name of the __singular_words__, trimmed.' })
  name: string;

  @ApiProperty({ format: 'date-time', description: 'When the __singular_words__ was created (UTC).' })
  created_at: string;
}
