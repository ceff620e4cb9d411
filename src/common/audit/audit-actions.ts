/**
 * The actions the audit trail records, `<resource_type>.<verb>` (docs/audit.md). Each module
 * defines the actions it writes in its own `<module>.audit.ts`, lists them in its `definitions`,
 * and writes events with the constants defineAuditAction returns: an action that was never defined
 * cannot be written (the type says so). The application collects them into one AuditActionCatalog
 * (common/registries).
 */
declare const definedAction: unique symbol;
export type AuditAction = string & { readonly [definedAction]: true };

const ACTION_NAME = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;

/** An action, its name checked; it is in no catalog until a module lists it. */
export function defineAuditAction(action: string): AuditAction {
  if (!ACTION_NAME.test(action)) throw new Error(`Audit action "${action}" is not of the form <resource_type>.<verb> (snake_case)`);
  return action as AuditAction;
}

export function resourceTypeOf(action: AuditAction): string {
  return action.slice(0, action.indexOf('.'));
}

/** The application's audit actions and the resource types they name, each sorted; built once by collectRegistries, frozen. */
export class AuditActionCatalog {
  readonly actions: readonly AuditAction[];
  readonly resourceTypes: readonly string[];

  constructor(actions: readonly AuditAction[]) {
    this.actions = Object.freeze([...new Set(actions)].sort());
    this.resourceTypes = Object.freeze([...new Set(this.actions.map(resourceTypeOf))].sort());
    Object.freeze(this);
  }
}
