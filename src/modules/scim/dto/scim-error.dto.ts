import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** The error body of every failure under /scim/v2 (RFC 7644 §3.12), documented for the SCIM operations instead of the API's. */
export class ScimErrorDto {
  @ApiProperty({ type: [String], example: ['urn:ietf:params:scim:api:messages:2.0:Error'] })
  schemas: string[];

  @ApiProperty({ description: 'The HTTP status, as a string.', example: '404' })
  status: string;

  @ApiPropertyOptional({
    description: 'RFC 7644 §3.12: why a 400 or 409 was refused.',
    enum: ['invalidFilter', 'tooMany', 'uniqueness', 'mutability', 'invalidSyntax', 'invalidPath', 'noTarget', 'invalidValue', 'invalidVers', 'sensitive'],
  })
  scimType?: string;

  @ApiProperty({ description: 'Human-readable explanation.' })
  detail: string;
}
