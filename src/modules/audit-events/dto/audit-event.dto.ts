import { ApiProperty } from '@nestjs/swagger';
import { registryEnum } from '../../../common/registries/registry-list';
import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES } from '../audit-lists';

export class AuditActorDto {
  @ApiProperty({ enum: ['api_key', 'cli'], description: '`api_key`: a call of this API; `cli`: the admin command line.' })
  type: 'api_key' | 'cli';

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The API key that made the call; null for the CLI.' })
  api_key_id: string | null;
}

/** One entry of the audit trail on the wire. */
export class AuditEventDto {
  @ApiProperty({ format: 'uuid', description: 'Identifier of the event, a UUID version 7: it sorts by the time it was written.' })
  event_id: string;

  @ApiProperty({ format: 'date-time', description: 'When the change was made (UTC, milliseconds).' })
  occurred_at: string;

  @ApiProperty({ type: String, enum: registryEnum(AUDIT_ACTIONS), description: 'What happened: `<resource_type>.<verb>`.' })
  action: string;

  @ApiProperty({ type: String, enum: registryEnum(AUDIT_RESOURCE_TYPES), description: 'The kind of record that changed.' })
  resource_type: string;

  @ApiProperty({ description: 'The identifier of the record that changed (the organization_id for its subscription).' })
  resource_id: string;

  @ApiProperty({ type: AuditActorDto, description: 'Who made the change.' })
  actor: AuditActorDto;

  @ApiProperty({ type: String, nullable: true, description: "The X-Request-Id of the API call that made the change (the caller's, or the one the service made); null for the CLI." })
  request_id: string | null;

  @ApiProperty({ type: 'integer', format: 'int64', nullable: true, description: "Revisioned records (expert suites): the revision the change started from; null for others and for a creation." })
  revision_before: number | null;

  @ApiProperty({ type: 'integer', format: 'int64', nullable: true, description: 'Revisioned records (expert suites): the revision the change made; null for others.' })
  revision_after: number | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['old', 'new'],
      properties: {
        old: { description: 'The value before (null for a creation), as the record shows it on the wire; "redacted" for a secret.' },
        new: { description: 'The value after; "redacted" for a secret.' },
      },
    },
    description:
      'The fields that changed, under their wire names, each with its old and new value. A secret (key material, a hash, a signing secret) ' +
      'appears only by its field name, with the value "redacted". A package applied to a suite shows as `upload_id` with the fields it set ' +
      '(version, counts, connector_refs, has_package), not the contents it copied.',
    example: { display_name: { old: 'Tax helper', new: 'Tax and payroll helper' }, status: { old: 'draft', new: 'published' } },
  })
  changes: Record<string, { old: unknown; new: unknown }>;
}
