import { auditActionsWith } from '../../common/audit/audit-actions';

/** What an endpoint subscribes to: every one of the audit trail's actions. */
export const EVERY_EVENT_TYPE = '*';

/** The event types an endpoint may name: `*`, or the audit actions (docs/audit.md), every one defined as the modules load. */
export const EVENT_TYPE_VALUES: readonly string[] = auditActionsWith(EVERY_EVENT_TYPE);
