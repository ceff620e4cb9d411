/**
 * The actions the audit trail records, `<resource_type>.<verb>` (docs/audit.md). Each module
 * defines the actions it writes in its own `<module>.audit.ts`, as it defines its scopes, and
 * writes events with the constants defineAuditAction returns: an action that was never defined
 * cannot be written (the type says so), and no list outside the module names it.
 */
declare const definedAction: unique symbol;
export type AuditAction = string & { readonly [definedAction]: true };

const ACTION_NAME = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;

/**
 * Every action defined so far, sorted, and the resource types they name. These are the same arrays
 * as more modules load, so that the validators and the OpenAPI document, which are built after
 * the application's modules have loaded, hold every action whichever module was loaded first.
 */
export const AUDIT_ACTIONS: readonly string[] = [];
export const AUDIT_RESOURCE_TYPES: readonly string[] = [];
/** AUDIT_ACTIONS with `extra` values first (webhook event types add `*`): kept up to date the same way. */
const extended: { extra: readonly string[]; values: string[] }[] = [];

export function auditActionsWith(...extra: string[]): readonly string[] {
  const list = { extra, values: [...extra, ...AUDIT_ACTIONS] };
  extended.push(list);
  return list.values;
}

export function defineAuditAction(action: string): AuditAction {
  if (!ACTION_NAME.test(action)) throw new Error(`Audit action "${action}" is not of the form <resource_type>.<verb> (snake_case)`);
  if (!AUDIT_ACTIONS.includes(action)) {
    addSorted(AUDIT_ACTIONS as string[], action);
    const resourceType = resourceTypeOf(action as AuditAction);
    if (!AUDIT_RESOURCE_TYPES.includes(resourceType)) addSorted(AUDIT_RESOURCE_TYPES as string[], resourceType);
    for (const list of extended) list.values.splice(list.extra.length, Infinity, ...AUDIT_ACTIONS);
  }
  return action as AuditAction;
}

export function resourceTypeOf(action: AuditAction): string {
  return action.slice(0, action.indexOf('.'));
}

function addSorted(values: string[], value: string): void {
  values.push(value);
  values.sort();
}
