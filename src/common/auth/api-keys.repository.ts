import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { columns, type RowOf } from '../../database/columns';
import { RowLock } from '../../database/locks';
import { SqlHost } from '../../database/sql-host';
import { Prisma, type ApiKey } from '../../generated/prisma/client';
import { AuditStatements, created, REDACTED, type AuditContext } from '../audit/audit-event';
import { AuthAudit } from './auth.audit';

/** The NOTIFY channel a revocation is announced on, with the key's id as payload (ApiKeysRepository.revoke). */
export const API_KEY_REVOKED_CHANNEL = 'api_key_revoked';

/** What authenticating a request reads of its key. */
export type ApiKeyCredentialRow = Pick<ApiKey, 'id' | 'organizationId' | 'scopes' | 'revokedAt' | 'keyHash'>;

const API_KEY_LISTING = columns<ApiKey>()('id', 'keyPrefix', 'scopes', 'createdAt', 'revokedAt');
/** A key as the admin CLI shows it: never the key or its hash. */
export type ApiKeyListingRow = RowOf<typeof API_KEY_LISTING>;

export type RevokedApiKeyRow = Pick<ApiKey, 'id'> & { revokedAt: NonNullable<ApiKey['revokedAt']> };

// The look-up of every request whose key is not cached: its text (indentation included) is a
// prepared statement's key, keep it as it is.
const keyByHashStatement = (hash: string) => Prisma.sql`
        SELECT id, organization_id AS "organizationId", scopes, revoked_at AS "revokedAt", key_hash AS "keyHash"
        FROM api_keys WHERE key_hash = ${hash}`;

/** The revocation version: one row, incremented by every revocation (revoke). */
const READ_REVOCATION_VERSION = Prisma.sql`SELECT version::text AS version FROM api_key_revocation_version WHERE id = 1`;

/** The api_keys table and the revocation version: authentication's reads and the admin CLI's writes. */
@Injectable()
export class ApiKeysRepository {
  /** With DATABASE_NOTIFICATIONS on, a revocation is also announced with NOTIFY on API_KEY_REVOKED_CHANNEL. */
  private readonly notifyRevoked: Prisma.Sql;

  constructor(
    private readonly txHost: SqlHost,
    private readonly audit: AuditStatements,
    @Inject(AppConfig) config: Pick<AppConfig, 'DATABASE_NOTIFICATIONS'>,
  ) {
    this.notifyRevoked = config.DATABASE_NOTIFICATIONS === 'on' ? Prisma.sql`, pg_notify(${API_KEY_REVOKED_CHANNEL}, revoked.id::text)` : Prisma.empty;
  }

  /** The key with this hash (of the whole token), revoked or not; on the primary. */
  async findByHash(hash: string): Promise<ApiKeyCredentialRow | undefined> {
    const [key] = await this.txHost.sql.query<ApiKeyCredentialRow>(keyByHashStatement(hash));
    return key;
  }

  /** The revocation version as text (an int8), or undefined when its row is missing (migrations not run). */
  async readRevocationVersion(): Promise<string | undefined> {
    const [row] = await this.txHost.sql.query<{ version: string }>(READ_REVOCATION_VERSION);
    return row?.version;
  }

  /**
   * Inserts a key of the organization, created at the context's time, and its `api_key.created`
   * event (the key itself redacted), in one statement. Only the key's hash and display prefix are
   * stored.
   */
  async insert(organizationId: string, key: { hash: string; prefix: string; scopes: string[] }, context: AuditContext): Promise<ApiKeyListingRow> {
    const [row] = await this.txHost.sql.query<ApiKeyListingRow>(Prisma.sql`
      WITH changed AS (
        INSERT INTO api_keys (id, organization_id, key_hash, key_prefix, scopes, created_at)
        VALUES (gen_random_uuid(), ${organizationId}::uuid, ${key.hash}, ${key.prefix}, ${key.scopes}::text[], ${context.at}::timestamptz)
        RETURNING id, key_prefix, scopes, created_at, revoked_at),
      ${this.audit.insertFrom(context, Prisma.sql`changed`, {
        organizationId,
        action: AuthAudit.ApiKeyCreated,
        resourceId: Prisma.sql`changed.id::text`,
        changes: created({ key: REDACTED, prefix: key.prefix, scopes: key.scopes }),
      })}
      SELECT ${API_KEY_LISTING.sql} FROM changed`);
    return row;
  }

  /** The organization's keys, newest first. */
  listByOrganization(organizationId: string): Promise<ApiKeyListingRow[]> {
    return this.txHost.sql.query<ApiKeyListingRow>(Prisma.sql`
      SELECT ${API_KEY_LISTING.sql} FROM api_keys WHERE organization_id = ${organizationId}::uuid ORDER BY created_at DESC, id`);
  }

  /**
   * Revokes the key at the context's time, increments the revocation version and (with
   * notifications on) announces it on API_KEY_REVOKED_CHANNEL, all in one statement, so every
   * instance drops the key from its cache when the revocation commits: at once through NOTIFY, or
   * at its next poll of the version. Revoking again keeps the first revoked_at (and announces it
   * again, which is harmless). Undefined when there is no such key.
   */
  async revoke(id: string, context: AuditContext): Promise<RevokedApiKeyRow | undefined> {
    // The first revocation writes the api_key.revoked event in the same statement (the `newly`
    // row); revoking again changes nothing and writes none. Every revocation bumps the version
    // row that instances without LISTEN poll (DATABASE_NOTIFICATIONS=off).
    const [revoked] = await this.txHost.sql.query<RevokedApiKeyRow>(Prisma.sql`
      WITH prior AS (
        SELECT id, revoked_at FROM api_keys WHERE id = ${id}::uuid ${RowLock.forUpdate}
      ),
      revoked AS (
        UPDATE api_keys AS k SET revoked_at = COALESCE(prior.revoked_at, ${context.at}) FROM prior WHERE k.id = prior.id
        RETURNING k.id, k.organization_id, k.revoked_at, prior.revoked_at IS NULL AS newly
      ),
      newly AS (SELECT id, organization_id FROM revoked WHERE newly),
      ${this.audit.insertFrom(context, Prisma.sql`newly`, {
        organizationId: Prisma.sql`newly.organization_id`,
        action: AuthAudit.ApiKeyRevoked,
        resourceId: Prisma.sql`newly.id::text`,
        changes: { revoked_at: { old: null, new: context.at.toISOString() } },
      })},
      bumped AS (
        UPDATE api_key_revocation_version SET version = version + 1 WHERE id = 1 AND EXISTS (SELECT 1 FROM revoked) RETURNING version
      )
      SELECT revoked.id, revoked.revoked_at AS "revokedAt" FROM revoked LEFT JOIN bumped ON true${this.notifyRevoked}`);
    return revoked;
  }
}
