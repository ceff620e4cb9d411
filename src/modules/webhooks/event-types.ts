import { registryList } from '../../common/registries/registry-list';

/** What an endpoint subscribes to: every one of the audit trail's actions. */
export const EVERY_EVENT_TYPE = '*';

/** The event types an endpoint may name: `*`, or the application's audit actions (docs/audit.md). */
export const EVENT_TYPE_VALUES = registryList('audit_actions', [EVERY_EVENT_TYPE]);
