import { Module } from '@nestjs/common';
import { APP_REGISTRIES, applicationRegistries } from '../../app.module';
import { defineAuditAction } from '../audit/audit-actions';
import { defineScope } from '../auth/scope-catalog';
import { defineErrorCode } from '../errors/error-code';
import { REVISION_CONFLICT } from '../http/write-preconditions';
import { collectRegistries, moduleDefinitionSource, type ModuleDefinitions } from './registries';
import { isRegistryList, registryEnum, registryList, registryListValues, withRegistryEnums } from './registry-list';

const source = (name: string, definitions: ModuleDefinitions) => ({ name, definitions });

describe('the registries', () => {
  it("collect each module's scopes, codes and actions, sorted and frozen", () => {
    const registries = collectRegistries([
      source('GadgetsModule', { scopes: { Read: defineScope('admin.v1.gadgets.read', 'Read gadgets.') }, errors: { GADGET_GONE: defineErrorCode('GADGET_GONE', 410) }, auditActions: { Created: defineAuditAction('gadget.created') } }),
      source('WidgetsModule', { scopes: { Read: defineScope('admin.v1.widgets.read', 'Read widgets.') }, auditActions: { Deleted: defineAuditAction('widget.deleted'), Created: defineAuditAction('widget.created') } }),
      source('HealthModule', {}),
    ]);
    expect(registries.scopes.names).toEqual(['admin.v1.gadgets.read', 'admin.v1.widgets.read']);
    expect(registries.errors.find('GADGET_GONE')).toEqual({ code: 'GADGET_GONE', status: 410 });
    expect(registries.auditActions.actions).toEqual(['gadget.created', 'widget.created', 'widget.deleted']);
    expect(registries.auditActions.resourceTypes).toEqual(['gadget', 'widget']);
    expect([registries, registries.scopes, registries.errors, registries.auditActions].every(Object.isFrozen)).toBe(true);
    expect(Reflect.set(registries, 'scopes', undefined)).toBe(false);
  });

  it('refuse a name defined twice, naming both modules, whether the definitions agree or not', () => {
    const twice = (first: ModuleDefinitions, second: ModuleDefinitions) => () => collectRegistries([source('GadgetsModule', first), source('WidgetsModule', second)]);
    expect(twice({ scopes: { Read: defineScope('admin.v1.gadgets.read', 'Read.') } }, { scopes: { Read: defineScope('admin.v1.gadgets.read', 'Read.') } })).toThrow(
      'Scope admin.v1.gadgets.read is defined twice: by GadgetsModule and by WidgetsModule',
    );
    expect(twice({ errors: { GONE: defineErrorCode('GONE', 410) } }, { errors: { GONE: defineErrorCode('GONE', 404) } })).toThrow('Error code GONE is defined twice: by GadgetsModule and by WidgetsModule');
    expect(twice({ auditActions: { Created: defineAuditAction('gadget.created') } }, { auditActions: { Made: defineAuditAction('gadget.created') } })).toThrow(
      'Audit action gadget.created is defined twice: by GadgetsModule and by WidgetsModule',
    );
  });

  it('take one definition listed by two modules once (a module re-exporting a shared code)', () => {
    const registries = collectRegistries([source('the global layers', { errors: { REVISION_CONFLICT } }), source('SuitesModule', { errors: { REVISION_CONFLICT } })]);
    expect(registries.errors.all).toEqual([REVISION_CONFLICT]);
  });

  it("are the application's: the built-in modules', and an extra module's beside them, whose duplicate fails the start", () => {
    expect(APP_REGISTRIES.scopes.has('admin.v1.user-directory.read')).toBe(true);
    expect(APP_REGISTRIES.auditActions.actions).toEqual(expect.arrayContaining(['api_key.created', 'department.created', 'webhook_endpoint.created']));
    expect(APP_REGISTRIES.errors.find('IDEMPOTENCY_KEY_REUSED')?.status).toBe(422);

    @Module({})
    class GadgetsModule {
      static readonly definitions: ModuleDefinitions = { auditActions: { Created: defineAuditAction('gadget.created') } };
    }
    expect(moduleDefinitionSource({ module: GadgetsModule }).name).toBe('GadgetsModule');
    const withGadgets = applicationRegistries([GadgetsModule, { module: GadgetsModule }]);
    expect(withGadgets.auditActions.actions).toContain('gadget.created');
    expect(APP_REGISTRIES.auditActions.actions).not.toContain('gadget.created');

    @Module({})
    class SecondDirectoryModule {
      static readonly definitions: ModuleDefinitions = { scopes: { Read: defineScope('admin.v1.user-directory.read', 'Read the directory.') } };
    }
    expect(() => applicationRegistries([SecondDirectoryModule])).toThrow('Scope admin.v1.user-directory.read is defined twice: by DirectoryModule and by SecondDirectoryModule');
  });

  it('resolve the lists that fields and schemas name, in validation and in the document', () => {
    const registries = collectRegistries([source('GadgetsModule', { auditActions: { Created: defineAuditAction('gadget.created') } })]);
    const eventTypes = registryList('audit_actions', ['*']);
    expect(isRegistryList(eventTypes) && !isRegistryList(['*'])).toBe(true);
    expect(registryListValues(eventTypes, registries)).toEqual(['*', 'gadget.created']);

    const document = { components: { schemas: { Event: { properties: { action: { type: 'string', enum: registryEnum(registryList('audit_resource_types')) } } } } }, paths: { '/x': { get: { parameters: [{ schema: { type: 'string', enum: ['fixed'] } }] } } } };
    const resolved = withRegistryEnums(document, registries);
    expect(resolved.components.schemas.Event.properties.action.enum).toEqual(['gadget']);
    expect(resolved.paths).toBe(document.paths);
    // The built document's objects are the decorators' metadata, shared by every application: never changed.
    expect(document.components.schemas.Event.properties.action.enum).toEqual(registryEnum(registryList('audit_resource_types')));
  });
});
