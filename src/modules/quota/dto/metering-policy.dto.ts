import { ApiProperty } from '@nestjs/swagger';

export const CYCLE_MODE = 'subscription-cycle';
export type DataStatus = 'fresh' | 'stale';

/** The organization's metering policy (docs/metering-policy.md). */
export class MeteringPolicyDto {
  @ApiProperty({ enum: [CYCLE_MODE], description: 'Metering cycle mode. Always `subscription-cycle`: usage resets follow the subscription cycle.' })
  cycle_mode: typeof CYCLE_MODE;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-23T11:42:36.654Z',
    description: 'When the returned data was read from the database (ISO 8601, UTC); a cached or stale answer keeps the time of its original read.',
  })
  data_as_of: string;

  @ApiProperty({
    enum: ['fresh', 'stale'],
    description: '`fresh`: read from the database within the last few seconds. `stale`: the database is unreachable and an older cached read is returned.',
  })
  data_status: DataStatus;

  @ApiProperty({
    format: 'date-time',
    example: '2026-11-30T23:30:00.000Z',
    description:
      'The next reset of cycle usage (ISO 8601, UTC), computed at request time: the first reset strictly after now. Resets fall on the ' +
      "subscription anchor's day-of-month and time of day, clamped to the last day of shorter months.",
  })
  next_reset_at: string;

  @ApiProperty({ format: 'date-time', example: '2026-10-31T23:30:00.000Z', description: 'When the subscription record was last changed (ISO 8601, UTC).' })
  updated_at: string;
}
