import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ErrorDetailsDto {
  @ApiProperty({ description: 'The request field that failed validation.', example: 'name' })
  field: string;

  @ApiProperty({ description: 'Stable reason code, snake_case.', example: 'too_long' })
  reason: string;

  @ApiPropertyOptional({ description: 'Suggested normalized value of the field.' })
  suggestion?: string;
}

/** The error body every failed request returns (docs/api-conventions.md). */
export class ErrorBodyDto {
  @ApiProperty({ description: 'Stable business error code.', example: 'VALIDATION_FAILED' })
  code: string;

  @ApiProperty({ description: 'Stable HTTP error type, snake_case.', example: 'bad_request' })
  error: string;

  @ApiProperty({ description: 'Human-readable explanation.' })
  detail: string;

  @ApiPropertyOptional({ type: ErrorDetailsDto, description: 'Present for field validation failures.' })
  details?: ErrorDetailsDto;
}
