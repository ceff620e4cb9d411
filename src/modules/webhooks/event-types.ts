import { AUDIT_ACTIONS } from '../../common/audit/audit-event';

/** What an endpoint subscribes to: every one of the audit trail's actions. */
export const EVERY_EVENT_TYPE = '*';

/** The event types an endpoint may name: the audit actions (docs/audit.md), or `*`. */
export const EVENT_TYPE_VALUES: readonly string[] = [...AUDIT_ACTIONS, EVERY_EVENT_TYPE];
