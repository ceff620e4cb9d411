import { CLI_ACTOR } from '../common/audit/audit-actor';
import { AuditStatements, type AuditContext } from '../common/audit/audit-event';
import { ApiKeysRepository } from '../common/auth/api-keys.repository';
import { generateApiKeyToken } from '../common/auth/api-key-token';
import { APP_REGISTRIES } from '../app.module';
import type { ScopeCatalog } from '../common/auth/scope-catalog';
import { Clock } from '../common/clock';
import { readDateTime } from '../common/validation/date-time';
import type { SqlDriver } from '../database/sql-driver';
import { TransactionHost } from '../database/transaction-host';
import { CategoriesRepository } from '../modules/expert-suites/categories.repository';
import type { ExpertSuiteDto } from '../modules/expert-suites/dto/expert-suite.dto';
import { toExpertSuiteDto } from '../modules/expert-suites/expert-suite.mapper';
import { ExpertSuitesRepository } from '../modules/expert-suites/expert-suites.repository';
import { SubscriptionsRepository } from '../modules/quota/subscriptions.repository';
import { AdminArgumentError, AdminError } from './admin-error';
import { OrganizationsRepository } from './organizations.repository';
import { UploadFileImport, type UploadImportReport } from './upload-file-import';

/** The name of the organization the first start of an empty embedded database creates. */
export const DEMO_ORGANIZATION_NAME = 'Demo organization';

export interface ApiKeyListing {
  id: string;
  /** The key's first characters, as shown at creation: enough to tell keys apart, useless to authenticate. */
  prefix: string;
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
}

/**
 * Bootstrap and operations outside the public API (docs/operations.md): organizations,
 * API keys, and the records the API acts on. Used by the CLI and the demo bootstrap, without the
 * Nest application: it builds the repositories it writes through itself.
 */
export class AdminService {
  private readonly organizations: OrganizationsRepository;
  private readonly apiKeys: ApiKeysRepository;
  private readonly categories: CategoriesRepository;
  private readonly suites: ExpertSuitesRepository;
  private readonly subscriptions: SubscriptionsRepository;
  private readonly uploadImport: UploadFileImport;

  /**
   * `notifications`: DATABASE_NOTIFICATIONS, whether a revocation is also announced with NOTIFY
   * (the revocation version is incremented either way), and a queued webhook delivery too.
   */
  constructor(
    sql: SqlDriver,
    private readonly clock: Clock = new Clock(),
    notifications: 'on' | 'off' = 'on',
    /** The scopes a key may hold; the demo key holds all of them. */
    private readonly scopes: ScopeCatalog = APP_REGISTRIES.scopes,
  ) {
    const txHost = new TransactionHost(sql);
    const audit = new AuditStatements(notifications);
    this.organizations = new OrganizationsRepository(txHost);
    this.apiKeys = new ApiKeysRepository(txHost, audit, { DATABASE_NOTIFICATIONS: notifications });
    this.categories = new CategoriesRepository(txHost, audit);
    this.suites = new ExpertSuitesRepository(txHost, audit);
    this.subscriptions = new SubscriptionsRepository(txHost, audit);
    this.uploadImport = new UploadFileImport(txHost, audit);
  }

  /** A new organization gets a subscription anchored at its creation time. */
  async createOrganization(name: string): Promise<{ id: string; name: string }> {
    const trimmed = requireText(name, 'name', 255);
    return this.organizations.insertWithSubscription(trimmed, this.clock.now());
  }

  /** Every organization, oldest first, with how many keys it holds that are not revoked. */
  async listOrganizations(): Promise<{ organizations: Array<{ id: string; name: string; created_at: string; active_api_keys: number }> }> {
    const organizations = await this.organizations.listWithActiveKeyCounts();
    return {
      organizations: organizations.map((organization) => ({
        id: organization.id,
        name: organization.name,
        created_at: organization.createdAt.toISOString(),
        active_api_keys: organization.activeApiKeys,
      })),
    };
  }

  /** Whether the database holds any organization (the demo seed runs only on an empty one). */
  hasOrganizations(): Promise<boolean> {
    return this.organizations.any();
  }

  /**
   * A new key holding every scope for the demo organization that the first start of an empty
   * embedded database created (the oldest organization named DEMO_ORGANIZATION_NAME): the way back
   * to a working key when the one printed at that start is lost.
   */
  async createDemoKey(): Promise<{ organization_id: string; id: string; key: string; scopes: string[] }> {
    const demoId = await this.demoOrganizationId();
    if (!demoId) {
      throw new AdminError(
        `No organization named "${DEMO_ORGANIZATION_NAME}" (the service creates it on the first start of an empty embedded database). ` +
          'Create one with `org create`, then `apikey create`.',
      );
    }
    return { organization_id: demoId, ...(await this.createApiKey(demoId, [...this.scopes.names])) };
  }

  /** The oldest organization named DEMO_ORGANIZATION_NAME, if any. */
  demoOrganizationId(): Promise<string | undefined> {
    return this.organizations.findOldestNamed(DEMO_ORGANIZATION_NAME);
  }

  /** The plain key is returned here once; only its hash is stored. */
  async createApiKey(organizationId: string, scopes: string[]): Promise<{ id: string; key: string; scopes: string[] }> {
    await this.requireOrganization(organizationId);
    const unique = [...new Set(scopes.map((scope) => scope.trim()).filter((scope) => scope !== ''))];
    if (unique.length === 0) throw new AdminArgumentError('At least one scope is required.');
    const unknown = unique.filter((scope) => !this.scopes.has(scope));
    if (unknown.length > 0) throw new AdminArgumentError(`Unknown scope(s): ${unknown.join(', ')}. The catalog: ${this.scopes.names.join(', ')} (see the scopes command).`);
    const token = generateApiKeyToken();
    const apiKey = await this.apiKeys.insert(organizationId, { hash: token.hash, prefix: token.displayPrefix, scopes: unique }, this.context());
    return { id: apiKey.id, key: token.token, scopes: unique };
  }

  /** The organization's keys, newest first: never the key or its hash, only the short prefix that tells them apart. */
  async listApiKeys(organizationId: string): Promise<{ api_keys: ApiKeyListing[] }> {
    await this.requireOrganization(organizationId);
    const keys = await this.apiKeys.listByOrganization(organizationId);
    return {
      api_keys: keys.map((key) => ({
        id: key.id,
        prefix: key.keyPrefix,
        scopes: key.scopes,
        created_at: key.createdAt.toISOString(),
        revoked_at: key.revokedAt?.toISOString() ?? null,
      })),
    };
  }

  /**
   * Revokes the key; every instance drops it from its cache when the revocation commits
   * (ApiKeysRepository.revoke). Revoking again keeps the first revoked_at.
   */
  async revokeApiKey(id: string): Promise<{ id: string; revoked_at: string }> {
    requireUuid(id, 'id');
    const revoked = await this.apiKeys.revoke(id, this.context());
    if (!revoked) throw new AdminError(`No API key with id ${id}.`);
    return { id: revoked.id, revoked_at: revoked.revokedAt.toISOString() };
  }

  async createCategory(organizationId: string, name: string): Promise<{ id: string; name: string }> {
    await this.requireOrganization(organizationId);
    const trimmed = requireText(name, 'name', 255);
    const category = await this.categories.insert(organizationId, trimmed, this.context());
    if (!category) throw new AdminError(`The organization already has a category named "${trimmed}".`);
    return { id: category.id, name: category.name };
  }

  /** A draft enterprise suite without a package, with its market entry. */
  async createExpertSuite(organizationId: string, name: string): Promise<ExpertSuiteDto> {
    await this.requireOrganization(organizationId);
    const trimmed = requireText(name, 'name', 255);
    const suite = await this.suites.insert(organizationId, trimmed, this.context());
    // A new suite has no uploaded icon, so no address to build: no base URL is needed.
    return toExpertSuiteDto(suite, '');
  }

  /** Copies the files of uploads kept on disk by earlier releases (their UPLOAD_DIR) into the database; see UploadFileImport. */
  importUploadFiles(directory: string): Promise<UploadImportReport> {
    return this.uploadImport.importFrom(directory);
  }

  /** Setting the anchor it already has is no change, and writes no event. */
  async setSubscriptionAnchor(organizationId: string, anchor: string): Promise<{ organization_id: string; anchor_at: string }> {
    await this.requireOrganization(organizationId);
    const anchorAt = requireDateTime(anchor, 'anchor');
    const stored = await this.subscriptions.setAnchor(organizationId, anchorAt, this.context());
    return { organization_id: organizationId, anchor_at: stored.toISOString() };
  }

  /** Who and when of a CLI change, for its audit event (docs/audit.md). */
  private context(): AuditContext {
    return { actor: CLI_ACTOR, at: this.clock.now() };
  }

  private async requireOrganization(id: string): Promise<void> {
    requireUuid(id, 'org');
    if (!(await this.organizations.exists(id))) throw new AdminError(`No organization with id ${id}.`);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function requireUuid(value: string, option: string): void {
  if (!UUID.test(value)) throw new AdminArgumentError(`--${option} must be a uuid, got "${value}".`);
}

function requireText(value: string, option: string, max: number): string {
  const trimmed = value.trim();
  if (trimmed === '') throw new AdminArgumentError(`--${option} must not be blank.`);
  if (Array.from(trimmed).length > max) throw new AdminArgumentError(`--${option} must be at most ${max} characters.`);
  return trimmed;
}

function requireDateTime(value: string, option: string): Date {
  const read = readDateTime(value);
  if (read instanceof Date) return read;
  throw new AdminArgumentError(`--${option} ${read.message}; got "${value}".`);
}
