import { Controller, Get, Module } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AdminService } from '../src/admin/admin.service';
import { defineScope, scopeNames } from '../src/common/auth/scope-catalog';
import { RequireScope } from '../src/common/auth/auth.decorators';
import { Registries, type ModuleDefinitions } from '../src/common/registries/registries';
import type { Database } from '../src/database/database';
import { createTenant, openTestDatabase, startTestApp } from './support/test-app';

const GadgetScopeDefinitions = { Read: defineScope('admin.v1.gadgets.read', 'Read gadgets.') } as const;
const GadgetScope = scopeNames(GadgetScopeDefinitions);

@ApiExcludeController()
@Controller('gadgets')
class GadgetsController {
  @Get()
  @RequireScope(GadgetScope.Read)
  list(): { items: never[] } {
    return { items: [] };
  }
}

@Module({ controllers: [GadgetsController] })
class GadgetsModule {
  static readonly definitions: ModuleDefinitions = { scopes: GadgetScopeDefinitions };
}

/** The same controller in a module that forgot to list its scope. */
@Module({ controllers: [GadgetsController] })
class UnlistedGadgetsModule {}

/** A module that defines a scope another module owns. */
@Module({})
class SecondDirectoryModule {
  static readonly definitions: ModuleDefinitions = { scopes: { Read: defineScope('admin.v1.user-directory.read', 'Read the department directory.') } };
}

/** What each module lists is in the application's registries, and a start with a missing or doubled definition fails. */
describe('registries at start-up', () => {
  let database: Database;

  beforeAll(async () => {
    database = await openTestDatabase();
  });

  afterAll(() => database.close());

  it("checks a route against the scope its module lists, for keys that hold it and keys that do not", async () => {
    const app = await startTestApp(database, {}, [GadgetsModule]);
    try {
      // Keys are checked against the scopes of the application they are for.
      const admin = new AdminService(database.sql, undefined, undefined, app.app.get(Registries).scopes);
      const other = await createTenant(database);
      const holder = await admin.createApiKey(other.organizationId, [GadgetScope.Read]);
      await app.http().get('/gadgets').set('Authorization', `Bearer ${holder.key}`).expect(200);
      const refused = await app.http().get('/gadgets').set('Authorization', other.bearer).expect(403);
      expect(refused.body.detail).toContain(GadgetScope.Read);
    } finally {
      await app.close();
    }
  });

  it('refuses to start with a route whose scope no module lists, naming the route and the scope', async () => {
    await expect(startTestApp(database, {}, [UnlistedGadgetsModule])).rejects.toThrow(
      '@RequireScope names scopes no module lists in its definitions (defineScope in the module\'s .scopes.ts, then the module\'s static definitions): GadgetsController.list: admin.v1.gadgets.read',
    );
  });

  it('refuses to start with a name two modules define, naming both', async () => {
    await expect(startTestApp(database, {}, [SecondDirectoryModule])).rejects.toThrow('Scope admin.v1.user-directory.read is defined twice: by DirectoryModule and by SecondDirectoryModule');
  });
});
