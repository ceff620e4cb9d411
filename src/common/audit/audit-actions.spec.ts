import { AuditActionCatalog, defineAuditAction, resourceTypeOf } from './audit-actions';

describe('audit actions', () => {
  it('are defined as <resource_type>.<verb> in snake_case, and nothing else is', () => {
    for (const bad of ['department', 'Department.created', 'department.created.twice', 'cost-center.created', '.created', 'department.']) {
      expect(() => defineAuditAction(bad)).toThrow(/is not of the form <resource_type>\.<verb>/);
    }
    expect(resourceTypeOf(defineAuditAction('cost_center.created'))).toBe('cost_center');
  });

  it('form a catalog of sorted actions and resource types, frozen', () => {
    const catalog = new AuditActionCatalog(['widget.deleted', 'gadget.created', 'widget.created'].map(defineAuditAction));

    expect(catalog.actions).toEqual(['gadget.created', 'widget.created', 'widget.deleted']);
    expect(catalog.resourceTypes).toEqual(['gadget', 'widget']);
    expect(Object.isFrozen(catalog) && Object.isFrozen(catalog.actions) && Object.isFrozen(catalog.resourceTypes)).toBe(true);
    expect(Reflect.set(catalog.actions, 0, 'late.created')).toBe(false);
  });
});
