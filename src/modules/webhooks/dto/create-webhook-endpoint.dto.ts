import { EnumListField, TextField } from '../../../common/validation/fields';
import { EVENT_TYPE_VALUES } from '../event-types';

export class CreateWebhookEndpointDto {
  @TextField({
    presence: 'required',
    maxLength: 2048,
    notBlank: true,
    exact: true,
    description:
      'Where the events are POSTed: an absolute `https` URL without credentials or fragment whose host resolves to public ' +
      'addresses (checked again at every delivery). `http` and private addresses only where the operator allows them ' +
      '(WEBHOOK_ALLOW_INSECURE_TARGETS). Stored as sent. A host reserved for examples (`example.com`, `.net`, `.org` and ' +
      'their subdomains, `*.example`, `*.invalid`; RFC 2606) is accepted, so that the examples run, but never sent to: each ' +
      'delivery fails at once, with no retry (docs/webhooks.md).',
    example: 'https://hooks.example.com/workspace-admin',
  })
  url: string;

  @EnumListField({
    presence: 'required',
    values: EVENT_TYPE_VALUES,
    minItems: 1,
    description: 'The audit actions to deliver (`department.created`, …), or `["*"]` for every one, including actions added later.',
    example: ['department.created', 'api_key.revoked'],
  })
  event_types: string[];

  @TextField({
    presence: 'nullable',
    maxLength: 1024,
    trim: true,
    description: 'What the endpoint is for, at most 1024 characters (code points), trimmed. Null or absent: none.',
    example: 'HR sync',
  })
  description?: string | null;
}
