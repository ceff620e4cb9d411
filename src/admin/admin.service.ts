import { API_KEY_REVOKED_CHANNEL } from '../common/auth/api-key-revocations';
import { generateApiKeyToken } from '../common/auth/api-key-token';
import { Clock } from '../common/clock';
import { readDateTime } from '../common/validation/date-time';
import { Prisma, type PrismaClient } from '../generated/prisma/client';
import { violations } from '../database/constraint-violations';
import { TransactionHost } from '../database/transaction-host';
import { RowLock } from '../database/locks';
import type { ExpertSuiteDto } from '../modules/expert-suites/dto/expert-suite.dto';
import { toExpertSuiteDto } from '../modules/expert-suites/expert-suite.mapper';
import { allScopes, isKnownScope } from '../common/auth/scope-catalog';
import { AdminArgumentError, AdminError } from './admin-error';
import { UploadFileImport, type UploadImportReport } from './upload-file-import';
import { CLI_ACTOR } from '../common/audit/audit-actor';
import { AuditStatements, created, REDACTED, type AuditEventInput } from '../common/audit/audit-event';
import { AuthAudit } from '../common/auth/auth.audit';
import { ExpertSuitesAudit } from '../modules/expert-suites/expert-suites.audit';
import { QuotaAudit } from '../modules/quota/quota.audit';

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
 * API keys, and the records the API acts on. Used by the CLI and the demo bootstrap.
 */
export class AdminService {
  /** The way module code reaches the database, here without the Nest application (and so without the driver's SQL transactions). */
  private readonly txHost: TransactionHost;
  private readonly auditStatements: AuditStatements;

  /**
   * `notifications`: DATABASE_NOTIFICATIONS, whether a revocation is also announced with NOTIFY
   * (the revocation version is incremented either way), and a queued webhook delivery too.
   */
  constructor(
    private readonly prisma: PrismaClient,
    private readonly clock: Clock = new Clock(),
    private readonly notifications: 'on' | 'off' = 'on',
  ) {
    this.txHost = new TransactionHost(prisma);
    this.auditStatements = new AuditStatements(notifications);
  }

  /** A new organization gets a subscription anchored at its creation time. */
  async createOrganization(name: string): Promise<{ id: string; name: string }> {
    const trimmed = requireText(name, 'name', 255);
    const organization = await this.txHost.tx.organization.create({
      data: { name: trimmed, subscription: { create: { anchorAt: this.clock.now() } } },
    });
    return { id: organization.id, name: organization.name };
  }

  /** Every organization, oldest first, with how many keys it holds that are not revoked. */
  async listOrganizations(): Promise<{ organizations: Array<{ id: string; name: string; created_at: string; active_api_keys: number }> }> {
    const organizations = await this.txHost.tx.organization.findMany({
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: { id: true, name: true, createdAt: true, _count: { select: { apiKeys: { where: { revokedAt: null } } } } },
    });
    return {
      organizations: organizations.map((organization) => ({
        id: organization.id,
        name: organization.name,
        created_at: organization.createdAt.toISOString(),
        active_api_keys: organization._count.apiKeys,
      })),
    };
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
    return { organization_id: demoId, ...(await this.createApiKey(demoId, [...allScopes()])) };
  }

  /** The oldest organization named DEMO_ORGANIZATION_NAME, if any. */
  async demoOrganizationId(): Promise<string | undefined> {
    const demo = await this.txHost.tx.organization.findFirst({
      where: { name: DEMO_ORGANIZATION_NAME },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: { id: true },
    });
    return demo?.id;
  }

  /** The plain key is returned here once; only its hash is stored. */
  async createApiKey(organizationId: string, scopes: string[]): Promise<{ id: string; key: string; scopes: string[] }> {
    await this.requireOrganization(organizationId);
    const unique = [...new Set(scopes.map((scope) => scope.trim()).filter((scope) => scope !== ''))];
    if (unique.length === 0) throw new AdminArgumentError('At least one scope is required.');
    const unknown = unique.filter((scope) => !isKnownScope(scope));
    if (unknown.length > 0) throw new AdminArgumentError(`Unknown scope(s): ${unknown.join(', ')}. The catalog: ${allScopes().join(', ')} (see the scopes command).`);
    const token = generateApiKeyToken();
    return this.txHost.withTransaction(async () => {
      const apiKey = await this.txHost.tx.apiKey.create({
        data: { organizationId, keyHash: token.hash, keyPrefix: token.displayPrefix, scopes: unique, createdAt: this.clock.now() },
      });
      await this.audit(apiKey.createdAt, {
        organizationId,
        action: AuthAudit.ApiKeyCreated,
        resourceId: apiKey.id,
        changes: created({ key: REDACTED, prefix: apiKey.keyPrefix, scopes: unique }),
      });
      return { id: apiKey.id, key: token.token, scopes: unique };
    });
  }

  /** The organization's keys, newest first: never the key or its hash, only the short prefix that tells them apart. */
  async listApiKeys(organizationId: string): Promise<{ api_keys: ApiKeyListing[] }> {
    await this.requireOrganization(organizationId);
    const keys = await this.txHost.tx.apiKey.findMany({
      where: { organizationId },
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      select: { id: true, keyPrefix: true, scopes: true, createdAt: true, revokedAt: true },
    });
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
   * Revokes the key, increments the revocation version and (with notifications on) announces it on
   * API_KEY_REVOKED_CHANNEL, all in one statement, so every instance drops the key from its cache
   * when the revocation commits: at once through NOTIFY, or at its next poll of the version.
   * Revoking again keeps the first revoked_at (and announces it again, which is harmless).
   */
  async revokeApiKey(id: string): Promise<{ id: string; revoked_at: string }> {
    requireUuid(id, 'id');
    const now = this.clock.now();
    // The first revocation writes the api_key.revoked event in the same statement (the `newly`
    // row); revoking again changes nothing and writes none. Every revocation bumps the version
    // row that instances without LISTEN poll (DATABASE_NOTIFICATIONS=off).
    const notify = this.notifications === 'on' ? Prisma.sql`, pg_notify(${API_KEY_REVOKED_CHANNEL}, revoked.id::text)` : Prisma.empty;
    const [revoked] = await this.txHost.sql.query<{ id: string; revoked_at: Date }>(Prisma.sql`
      WITH prior AS (
        SELECT id, revoked_at FROM api_keys WHERE id = ${id}::uuid ${RowLock.forUpdate}
      ),
      revoked AS (
        UPDATE api_keys AS k SET revoked_at = COALESCE(prior.revoked_at, ${now}) FROM prior WHERE k.id = prior.id
        RETURNING k.id, k.organization_id, k.revoked_at, prior.revoked_at IS NULL AS newly
      ),
      newly AS (SELECT id, organization_id FROM revoked WHERE newly),
      ${this.auditStatements.insertFrom({ actor: CLI_ACTOR, at: now }, Prisma.sql`newly`, {
        organizationId: Prisma.sql`newly.organization_id`,
        action: AuthAudit.ApiKeyRevoked,
        resourceId: Prisma.sql`newly.id::text`,
        changes: { revoked_at: { old: null, new: now.toISOString() } },
      })},
      bumped AS (
        UPDATE api_key_revocation_version SET version = version + 1 WHERE id = 1 AND EXISTS (SELECT 1 FROM revoked) RETURNING version
      )
      SELECT revoked.id, revoked.revoked_at FROM revoked LEFT JOIN bumped ON true${notify}`);
    if (!revoked) throw new AdminError(`No API key with id ${id}.`);
    return { id: revoked.id, revoked_at: revoked.revoked_at.toISOString() };
  }

  async createCategory(organizationId: string, name: string): Promise<{ id: string; name: string }> {
    await this.requireOrganization(organizationId);
    const trimmed = requireText(name, 'name', 255);
    try {
      return await this.txHost.withTransaction(async () => {
        const category = await this.txHost.tx.category.create({ data: { organizationId, name: trimmed } });
        await this.audit(this.clock.now(), { organizationId, action: ExpertSuitesAudit.CategoryCreated, resourceId: category.id, changes: created({ name: category.name }) });
        return { id: category.id, name: category.name };
      });
    } catch (error) {
      throw violations({ categories_organization_id_name_key: () => new AdminError(`The organization already has a category named "${trimmed}".`) })(error);
    }
  }

  /** A draft enterprise suite without a package, with its market entry. */
  async createExpertSuite(organizationId: string, name: string): Promise<ExpertSuiteDto> {
    await this.requireOrganization(organizationId);
    const trimmed = requireText(name, 'name', 255);
    const now = this.clock.now();
    return this.txHost.withTransaction(async () => {
      const suite = await this.txHost.tx.expertSuite.create({
        data: {
          organizationId,
          name: trimmed,
          displayName: trimmed,
          createdAt: now,
          updatedAt: now,
          marketItem: { create: { updatedAt: now } },
        },
        include: { marketItem: true },
      });
      await this.audit(now, {
        organizationId,
        action: ExpertSuitesAudit.SuiteCreated,
        resourceId: suite.id,
        revisionAfter: suite.revision,
        changes: created({ name: suite.name, display_name: suite.displayName, status: suite.status }),
      });
      // A new suite has no uploaded icon, so no address to build: no base URL is needed.
      return toExpertSuiteDto(suite, '');
    });
  }

  /** Copies the files of uploads kept on disk by earlier releases (their UPLOAD_DIR) into the database; see UploadFileImport. */
  importUploadFiles(directory: string): Promise<UploadImportReport> {
    return new UploadFileImport(this.prisma).importFrom(directory);
  }

  async setSubscriptionAnchor(organizationId: string, anchor: string): Promise<{ organization_id: string; anchor_at: string }> {
    await this.requireOrganization(organizationId);
    const anchorAt = requireDateTime(anchor, 'anchor');
    const now = this.clock.now();
    return this.txHost.withTransaction(async () => {
      const [before] = await this.txHost.sql.query<{ anchor_at: Date }>(Prisma.sql`
        SELECT anchor_at FROM subscriptions WHERE organization_id = ${organizationId}::uuid ${RowLock.forUpdate}`);
      const subscription = await this.txHost.tx.subscription.upsert({
        where: { organizationId },
        create: { organizationId, anchorAt },
        update: { anchorAt, updatedAt: now },
      });
      // Setting the anchor it already has is no change, and no event.
      if (before?.anchor_at.getTime() !== anchorAt.getTime()) {
        await this.audit(now, {
          organizationId,
          action: QuotaAudit.SubscriptionUpdated,
          resourceId: organizationId,
          changes: { anchor_at: { old: before?.anchor_at.toISOString() ?? null, new: anchorAt.toISOString() } },
        });
      }
      return { organization_id: organizationId, anchor_at: subscription.anchorAt.toISOString() };
    });
  }

  /** The audit event of a CLI change, in the change's transaction (docs/audit.md). */
  private async audit(at: Date, event: AuditEventInput): Promise<void> {
    await this.txHost.sql.execute(this.auditStatements.insert({ actor: CLI_ACTOR, at }, event));
  }

  private async requireOrganization(id: string): Promise<void> {
    requireUuid(id, 'org');
    const found = await this.txHost.tx.organization.findUnique({ where: { id }, select: { id: true } });
    if (!found) throw new AdminError(`No organization with id ${id}.`);
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
