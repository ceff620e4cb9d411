import { ApiProperty } from '@nestjs/swagger';
import { registryEnum } from '../../../common/registries/registry-list';
import { EVENT_TYPE_VALUES } from '../event-types';

/** A webhook endpoint on the wire (docs/webhooks.md); its secret is never shown again after create. */
export class WebhookEndpointDto {
  @ApiProperty({ format: 'uuid', description: 'Identifier of the endpoint.' })
  id: string;

  @ApiProperty({ description: 'Where the events are POSTed.' })
  url: string;

  @ApiProperty({ type: [String], enum: registryEnum(EVENT_TYPE_VALUES), description: 'The audit actions delivered, or `*` for every one.' })
  event_types: string[];

  @ApiProperty({ type: String, nullable: true, description: 'What the endpoint is for; null when none was given.' })
  description: string | null;

  @ApiProperty({ format: 'date-time', description: 'When the endpoint was created (UTC).' })
  created_at: string;
}

/** The answer of create: the endpoint and its signing secret, shown this once. */
export class CreatedWebhookEndpointDto extends WebhookEndpointDto {
  @ApiProperty({
    description:
      'The signing secret (`whsec_` + base64 of 32 random bytes), shown only in this answer: keep it to verify the `webhook-signature` ' +
      'of each delivery (docs/webhooks.md). rotate-secret replaces it.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw4qsMJNbxYn4=',
  })
  secret: string;
}

/** The answer of rotate-secret. */
export class RotatedSecretDto {
  @ApiProperty({ format: 'uuid', description: 'Identifier of the endpoint.' })
  id: string;

  @ApiProperty({ description: 'The new signing secret, shown only in this answer.', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw4qsMJNbxYn4=' })
  secret: string;

  @ApiProperty({
    format: 'date-time',
    description: 'Until when deliveries are also signed with the secret this one replaces (24 hours from now), so receivers can switch without missing one.',
  })
  previous_secret_expires_at: string;
}

export class WebhookEndpointPageDto {
  @ApiProperty({ type: [WebhookEndpointDto], description: 'In the order they were created.' })
  items: WebhookEndpointDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as page_token for the next page; null on the last page.' })
  next_page_token: string | null;
}
