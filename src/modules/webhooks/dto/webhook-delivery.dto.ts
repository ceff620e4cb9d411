import { ApiProperty } from '@nestjs/swagger';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** One event's delivery to one endpoint, with the state of its attempts. */
export class WebhookDeliveryDto {
  @ApiProperty({ format: 'uuid', description: 'Identifier of the delivery; also its `webhook-id` header, the same on every attempt.' })
  delivery_id: string;

  @ApiProperty({ format: 'uuid', description: 'The audit event delivered (`data.event_id` of the payload).' })
  event_id: string;

  @ApiProperty({ description: 'The event\'s action (`type` of the payload).', example: 'department.created' })
  event_type: string;

  @ApiProperty({
    enum: DELIVERY_STATUSES,
    description: '`pending`: waiting for its next attempt (or one is under way); `delivered`: a 2xx answer; `failed`: every attempt of the retry schedule failed.',
  })
  status: string;

  @ApiProperty({ type: 'integer', description: 'Attempts made since the delivery was queued (or queued again by redeliver).', example: 1 })
  attempts: number;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the last attempt started; null before the first.' })
  last_attempt_at: string | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'HTTP status of the last answer; null when there was none (timeout, refused, unreachable).', example: 200 })
  last_response_status: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the last attempt failed: the error, or the first bytes of the answer (at most 512 characters); null after a success.',
  })
  last_error: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the next attempt is due; null once delivered or failed.' })
  next_attempt_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When a 2xx answer came; null until then.' })
  delivered_at: string | null;

  @ApiProperty({ format: 'date-time', description: 'When the event was queued for this endpoint.' })
  created_at: string;
}

export class WebhookDeliveryPageDto {
  @ApiProperty({ type: [WebhookDeliveryDto], description: 'Newest first.' })
  items: WebhookDeliveryDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as page_token for the next page; null on the last page.' })
  next_page_token: string | null;
}
