import { registryList } from '../../common/registries/registry-list';

/** The application's audit actions and resource types, for the filters and the event's schema. */
export const AUDIT_ACTIONS = registryList('audit_actions');
export const AUDIT_RESOURCE_TYPES = registryList('audit_resource_types');
