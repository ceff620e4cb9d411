import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { MaxCodePoints, NotBlank, Required } from '../../../common/validation/field-rules';
import { LowerCaseUuid, NoSurroundingWhitespace, Trim } from '../../../common/validation/string-rules';

// Fields are declared in the spec's order, which is the order validation reports the first failure in.
export class CreateDepartmentDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 512,
    description:
      'Identifier in the source system, unique within the organization; at most 512 characters (code points). ' +
      'Stored exactly as sent, so it may not be blank or start or end with white space. Null or absent: none.',
    example: 'hr-4711',
  })
  @IsOptional()
  @IsString()
  @NotBlank()
  @NoSurroundingWhitespace()
  @MaxCodePoints(512)
  external_id?: string | null;

  @ApiProperty({
    maxLength: 255,
    description:
      'Department name, at most 255 characters (code points). Surrounding white space is trimmed; the rest may not be ' +
      'blank. Unique among its siblings, ignoring case.',
    example: 'Research',
  })
  @Trim()
  @Required()
  @IsString()
  @NotBlank()
  @MaxCodePoints(255)
  name: string;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'Parent department of the same organization (a uuid in any case; stored and returned lower-case); null or absent: a top-level department.',
  })
  @IsOptional()
  @IsString()
  @LowerCaseUuid()
  parent_id?: string | null;
}
