import { AdminService, DEMO_ORGANIZATION_NAME } from '../admin/admin.service';
import type { SqlDriver } from '../database/sql-driver';
import { APP_REGISTRIES } from '../app.module';
import { DEMO } from './demo-rows';

export interface DemoSeed {
  organizationId: string;
  apiKey: string;
  expertSuiteId: string;
  categoryId: string;
}

/**
 * On the first start of an empty embedded database, creates a demo organization with a key
 * holding every scope, so that a new user can try the API in Swagger UI at once.
 * Returns undefined when the database already has an organization.
 */
export async function seedDemoIfEmpty(sql: SqlDriver): Promise<DemoSeed | undefined> {
  if (await new AdminService(sql).hasOrganizations()) return undefined;
  return seedDemo(sql);
}

/** The demo organization, its key, category and suite; the rows the examples act on come with serveDemoExamples. */
export async function seedDemo(sql: SqlDriver): Promise<DemoSeed> {
  const admin = new AdminService(sql);
  const organization = await admin.createOrganization(DEMO_ORGANIZATION_NAME);
  const key = await admin.createApiKey(organization.id, [...APP_REGISTRIES.scopes.names]);
  const category = await admin.createCategory(organization.id, DEMO.categoryName);
  const suite = await admin.createExpertSuite(organization.id, DEMO.suiteName);
  return { organizationId: organization.id, apiKey: key.key, expertSuiteId: suite.id, categoryId: category.id };
}

export function describeDemoSeed(seed: DemoSeed, baseUrl: string): string {
  return [
    '',
    '  First start of the embedded database: a demo organization was created.',
    `  Demo organization: ${seed.organizationId}`,
    `  Demo API key (shown once; holds ${APP_REGISTRIES.scopes.names.join(', ')}):`,
    `    ${seed.apiKey}`,
    '  Lost it? Stop the service and run: npm run --silent cli -- demo-key',
    `  Expert suite to update: ${seed.expertSuiteId}   Category: ${seed.categoryId}`,
    `  Try it in Swagger UI: ${baseUrl}/docs  (Authorize with the key above)`,
    '',
  ].join('\n');
}

/** For a later start: where the demo organization is and how to get a new key for it (no key is printed again). */
export async function describeExistingDemo(sql: SqlDriver): Promise<string | undefined> {
  const organizationId = await new AdminService(sql).demoOrganizationId();
  if (!organizationId) return undefined;
  return `Demo organization: ${organizationId} (its key was printed on the first start; a new one: stop the service, then npm run --silent cli -- demo-key)`;
}
