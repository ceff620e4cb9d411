import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES, auditActionsWith, defineAuditAction, resourceTypeOf } from './audit-actions';

describe('audit actions', () => {
  it('are defined as <resource_type>.<verb> in snake_case, and nothing else is', () => {
    for (const bad of ['department', 'Department.created', 'department.created.twice', 'cost-center.created', '.created', 'department.']) {
      expect(() => defineAuditAction(bad)).toThrow(/is not of the form <resource_type>\.<verb>/);
    }
    expect(resourceTypeOf(defineAuditAction('cost_center.created'))).toBe('cost_center');
  });

  it('fill the same sorted arrays as modules define them, the extended lists included', () => {
    const actions = AUDIT_ACTIONS;
    const resourceTypes = AUDIT_RESOURCE_TYPES;
    const eventTypes = auditActionsWith('*');
    defineAuditAction('widget.deleted');
    defineAuditAction('gadget.created');
    defineAuditAction('widget.created');
    defineAuditAction('widget.created');

    expect(AUDIT_ACTIONS).toBe(actions);
    expect(AUDIT_RESOURCE_TYPES).toBe(resourceTypes);
    expect(AUDIT_ACTIONS.filter((action) => /^(widget|gadget)\./.test(action))).toEqual(['gadget.created', 'widget.created', 'widget.deleted']);
    expect(AUDIT_RESOURCE_TYPES.filter((type) => ['widget', 'gadget'].includes(type))).toEqual(['gadget', 'widget']);
    expect(eventTypes).toEqual(['*', ...AUDIT_ACTIONS]);
  });
});
