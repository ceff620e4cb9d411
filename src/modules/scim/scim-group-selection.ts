import { selectAttributes, type AttributeSelection } from './protocol/attribute-selection';
import { badScimRequest } from './protocol/scim-error';
import { GROUP_RESOURCE_TYPE } from './protocol/schemas';

/** `attributes` and `excludedAttributes` of a Groups request (RFC 7644 §3.9), each given at most once. */
export function readGroupSelection(query: { attributes?: unknown; excludedAttributes?: unknown }): AttributeSelection {
  return { attributes: parameter('attributes', query.attributes), excludedAttributes: parameter('excludedAttributes', query.excludedAttributes) };
}

function parameter(name: string, value: unknown): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  throw badScimRequest('invalidSyntax', `${name} must be given once, as a comma-separated list of attribute names.`);
}

// Every sub-attribute of a member, so that any selection of one keeps the attribute.
const WITH_MEMBERS = { schemas: [], id: '', members: [{ value: '', $ref: '', type: '', display: '' }] };

/**
 * Whether the answer shows members, as the protocol's projection decides it: when it does not
 * (Entra's `excludedAttributes=members`), the members are not read at all.
 */
export function selectsMembers(selection: AttributeSelection): boolean {
  return 'members' in selectAttributes(WITH_MEMBERS, selection, GROUP_RESOURCE_TYPE);
}

/** The group as the selection shows it. */
export function selectGroupAttributes(resource: Record<string, unknown>, selection: AttributeSelection): Record<string, unknown> {
  return selectAttributes(resource, selection, GROUP_RESOURCE_TYPE);
}
