import { APP_REGISTRIES } from '../../app.module';
import { scopesNamedInDocs } from '../../../test/support/api-conventions';
import { defineScope, ScopeCatalog, scopeNames } from './scope-catalog';

describe('the scope catalog', () => {
  it('takes area scopes and sub-resource scopes, kebab-case, and refuses other shapes', () => {
    expect(defineScope('admin.v1.scope-rule-probe.read', 'Probe: an area scope.')).toEqual({ name: 'admin.v1.scope-rule-probe.read', grants: 'Probe: an area scope.' });
    expect(defineScope('admin.v1.scope-rule-probe.sub-items.manage', 'Probe: a sub-resource scope.').name).toBe('admin.v1.scope-rule-probe.sub-items.manage');
    for (const name of ['admin.v1.directory.teams:manage', 'admin.v1.Directory.read', 'admin.v1.a.b.c.read', 'admin.v1.area.write', 'admin.v2.area.read', 'admin.v1.area_x.read']) {
      expect(() => defineScope(name, 'Probe.')).toThrow(/is not of the form/);
    }
  });

  it('gives a module its scopes by name, and sorts and freezes a catalog', () => {
    const scopes = { Read: defineScope('admin.v1.probe.read', 'Read.'), Manage: defineScope('admin.v1.probe.manage', 'Change.') };
    expect(scopeNames(scopes)).toEqual({ Read: 'admin.v1.probe.read', Manage: 'admin.v1.probe.manage' });

    const catalog = new ScopeCatalog([scopes.Read, scopes.Manage]);
    expect(catalog.names).toEqual(['admin.v1.probe.manage', 'admin.v1.probe.read']);
    expect(catalog.all.map((scope) => scope.grants)).toEqual(['Change.', 'Read.']);
    expect([catalog.has('admin.v1.probe.read'), catalog.has('admin.v1.probe.execute')]).toEqual([true, false]);
    expect(Object.isFrozen(catalog) && Object.isFrozen(catalog.all) && Object.isFrozen(catalog.names) && Object.isFrozen(scopes.Read)).toBe(true);
  });

  it("has every scope README.md and docs/ name: a renamed or removed scope fails here", () => {
    const named = scopesNamedInDocs();
    expect(named.length).toBeGreaterThanOrEqual(5);
    expect(named.filter(({ scope }) => !APP_REGISTRIES.scopes.has(scope))).toEqual([]);
  });
});
