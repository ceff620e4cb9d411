import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES } from '../audit-lists';
import { PageSize } from '../../../common/pagination/page-size';
import { PageToken } from '../../../common/pagination/page-token-parameter';
import { DateTimeField, EnumField, TextField, UuidField } from '../../../common/validation/fields';

/** Query of GET /audit-events: every parameter the list reads is declared here (an undeclared one is refused). */
export class ListAuditEventsQueryDto {
  @EnumField({ values: AUDIT_RESOURCE_TYPES, description: 'Only events of this kind of record.' })
  resource_type?: string;

  @TextField({ maxLength: 255, exact: true, description: 'Only events of the record with this identifier (as the events show it: uuids lower-case).' })
  resource_id?: string;

  @EnumField({ values: AUDIT_ACTIONS, description: 'Only events of this action.' })
  action?: string;

  @UuidField({ description: 'Only changes made with this API key (a uuid in any case).' })
  actor_api_key_id?: string;

  @DateTimeField({
    description: 'Only events that occurred at or after this instant (ISO 8601 with a time zone, e.g. 2026-01-31T09:00:00Z; a real instant from 1970-01-01T00:00:00Z on).',
  })
  since?: string;

  @DateTimeField({ description: 'Only events that occurred before this instant (exclusive; the same form and range as `since`).' })
  until?: string;

  @PageSize()
  page_size?: number;

  @PageToken('filters')
  page_token?: string;
}
