import { createHash } from 'node:crypto';
import { Client, type Pool } from 'pg';
import { HttpError } from './http';

export interface Principal {
  apiKeyId: string;
  organizationId: string;
  scopes: string[];
}

const BEARER = /^Bearer +(\S+) *$/i;
const TOKEN = /^wsk_[0-9A-Za-z]{40}$/;
const REVOCATION_CHANNEL = 'api_key_revoked';
const MAX_AGE_MS = 60_000;
const RECONNECT_DELAY_MS = 1_000;

/**
 * Verified keys cached in this process. Every revocation NOTIFYs `api_key_revoked`; a dedicated
 * connection LISTENs and drops the whole cache on any notification and on every (re)connect,
 * since notifications sent while it was away are lost. While it is away, nothing is cached.
 */
export class ApiKeys {
  private readonly verified = new Map<string, { principal: Principal; verifiedAt: number }>();
  // Bumped on every drop, so that a look-up that started before a revocation is not cached after it.
  private generation = 0;
  private listener: Client | undefined;
  private stopped = false;

  constructor(
    private readonly pool: Pool,
    private readonly connectionString: string,
  ) {}

  async start(): Promise<void> {
    const listener = new Client({ connectionString: this.connectionString });
    const lost = () => {
      if (this.listener !== listener) return;
      this.listener = undefined;
      this.forgetAll();
      listener.end().catch(() => undefined);
      if (!this.stopped) setTimeout(() => this.start().catch(() => undefined), RECONNECT_DELAY_MS);
    };
    listener.on('error', lost);
    listener.on('end', lost);
    listener.on('notification', () => this.forgetAll());
    try {
      await listener.connect();
      await listener.query(`LISTEN ${REVOCATION_CHANNEL}`);
    } catch (error) {
      await listener.end().catch(() => undefined);
      if (!this.stopped) setTimeout(() => this.start().catch(() => undefined), RECONNECT_DELAY_MS);
      throw error;
    }
    this.forgetAll();
    this.listener = listener;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end();
  }

  /** The principal of the bearer key when it holds `scope`; 401 or 403 otherwise. */
  async authenticate(authorization: string | undefined, scope: string): Promise<Principal> {
    const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    if (token === undefined || !TOKEN.test(token)) throw unauthenticated();
    const hash = createHash('sha256').update(token).digest('hex');
    const principal = this.cached(hash) ?? (await this.lookUp(hash));
    if (!principal.scopes.includes(scope)) throw new HttpError(403, 'INSUFFICIENT_SCOPE', `This operation requires the scope ${scope}.`);
    return principal;
  }

  private cached(hash: string): Principal | undefined {
    const entry = this.verified.get(hash);
    if (entry === undefined || this.listener === undefined) return undefined;
    if (Date.now() - entry.verifiedAt < MAX_AGE_MS) return entry.principal;
    this.verified.delete(hash);
    return undefined;
  }

  private async lookUp(hash: string): Promise<Principal> {
    const generation = this.generation;
    const { rows } = await this.pool.query<{ id: string; organization_id: string; scopes: string[] }>({
      name: 'api-key',
      text: 'SELECT id, organization_id, scopes FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
      values: [hash],
    });
    if (rows.length === 0) throw unauthenticated();
    const principal = { apiKeyId: rows[0].id, organizationId: rows[0].organization_id, scopes: rows[0].scopes };
    if (generation === this.generation && this.listener !== undefined) this.verified.set(hash, { principal, verifiedAt: Date.now() });
    return principal;
  }

  private forgetAll(): void {
    this.verified.clear();
    this.generation++;
  }
}

function unauthenticated(): HttpError {
  return new HttpError(401, 'UNAUTHENTICATED', 'The API key is not valid or has been revoked.', undefined, {
    'WWW-Authenticate': 'Bearer error="invalid_token"',
  });
}
