// Loads every module, and so every scope the modules define.
import '../../app.module';
import { scopesNamedInDocs } from '../../../test/support/api-conventions';
import { allScopes, defineScope } from './scope-catalog';

describe('the scope catalog', () => {
  it('takes area scopes and sub-resource scopes, kebab-case, and refuses other shapes', () => {
    expect(defineScope('admin.v1.scope-rule-probe.read', 'Probe: an area scope.')).toBe('admin.v1.scope-rule-probe.read');
    expect(defineScope('admin.v1.scope-rule-probe.sub-items.manage', 'Probe: a sub-resource scope.')).toBe('admin.v1.scope-rule-probe.sub-items.manage');
    for (const name of ['admin.v1.directory.teams:manage', 'admin.v1.Directory.read', 'admin.v1.a.b.c.read', 'admin.v1.area.write', 'admin.v2.area.read', 'admin.v1.area_x.read']) {
      expect(() => defineScope(name, 'Probe.')).toThrow(/is not of the form/);
    }
  });

  it('has every scope README.md and docs/ name: a renamed or removed scope fails here', () => {
    const named = scopesNamedInDocs();
    expect(named.length).toBeGreaterThanOrEqual(5);
    const catalog = new Set(allScopes());
    expect(named.filter(({ scope }) => !catalog.has(scope))).toEqual([]);
  });
});
