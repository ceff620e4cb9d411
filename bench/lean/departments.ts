import { createHash, randomUUID } from 'node:crypto';
import { DatabaseError, type Pool, type PoolClient } from 'pg';
import { HttpError, invalid } from './http';
import { refuseUnknownFields, text, uuid } from './input';
import type { Principal } from './api-keys';
import { auditCtes, auditParameters, changed, type Actor } from './audit';

const IDEMPOTENCY_KEY = /^[\x20-\x7E]{1,255}$/;
const RETENTION_SECONDS = 24 * 60 * 60;

// The claim: a new key, or an expired record taken over. No row back: a live record exists
// (committed: a concurrent claim of the same key waits here for the other transaction to end).
const CLAIM = `
  INSERT INTO idempotency_records (id, api_key_id, key, fingerprint, status_code, response_body, expires_at)
  VALUES ($1, $2, $3, $4, 0, '', now() + make_interval(secs => $5))
  ON CONFLICT (api_key_id, key) DO UPDATE
    SET fingerprint = EXCLUDED.fingerprint, status_code = 0, response_body = '', created_at = now(), expires_at = EXCLUDED.expires_at
    WHERE idempotency_records.expires_at <= now()
  RETURNING id`;
const READ_RECORD = 'SELECT fingerprint, status_code, response_body FROM idempotency_records WHERE api_key_id = $1 AND key = $2';
const STORE_RESPONSE = 'UPDATE idempotency_records SET status_code = $2, response_body = $3 WHERE id = $1';
// Serialises creations under one parent until commit, so that max(order) + 1 is every sibling's own.
const LOCK_SIBLINGS = 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))';
// The department with its `department.created` event and outbox rows, in one statement.
const CREATED_CHANGES = [
  changed('name', 'NULL', 'created.name'),
  changed('external_id', 'NULL', 'created.external_id'),
  changed('parent_id', 'NULL', 'created.parent_id'),
  changed('order', 'NULL', 'created."order"'),
].join(' || ');
const auditCreated = (firstParameter: number) => auditCtes({
  from: 'created',
  firstParameter,
  organizationId: 'created.organization_id',
  action: 'department.created',
  resourceId: 'created.id::text',
  revisionBefore: 'NULL::bigint',
  revisionAfter: 'created.revision',
  changes: CREATED_CHANGES,
});
const INSERT_TOP_LEVEL = `
  WITH created AS (
    INSERT INTO departments (id, organization_id, parent_id, name, external_id, "order", path, created_at, updated_at)
    SELECT $1::uuid, $2::uuid, NULL, $3::varchar, $4::varchar, coalesce(max("order"), 0) + 1, $1 || '/', $6::timestamptz, $6::timestamptz
    FROM departments WHERE organization_id = $2 AND parent_id IS NULL
    RETURNING id, organization_id, parent_id, name, external_id, "order", revision, created_at, updated_at),
  ${auditCreated(5)}
  SELECT "order", created_at, updated_at FROM created`;
const INSERT_CHILD = `
  WITH created AS (
    INSERT INTO departments (id, organization_id, parent_id, name, external_id, "order", path, created_at, updated_at)
    SELECT $1::uuid, $2::uuid, $5::uuid, $3::varchar, $4::varchar, coalesce(max("order"), 0) + 1,
      coalesce((SELECT path FROM departments WHERE organization_id = $2 AND id = $5), '') || $1 || '/', $7::timestamptz, $7::timestamptz
    FROM departments WHERE organization_id = $2 AND parent_id = $5
    RETURNING id, organization_id, parent_id, name, external_id, "order", revision, created_at, updated_at),
  ${auditCreated(6)}
  SELECT "order", created_at, updated_at FROM created`;

const ERROR_BY_CONSTRAINT: Record<string, () => HttpError> = {
  departments_sibling_name_key: () =>
    new HttpError(409, 'DEPARTMENT_NAME_CONFLICT', 'A department with this name (ignoring case) already exists under the same parent.'),
  departments_organization_id_external_id_key: () =>
    new HttpError(409, 'EXTERNAL_ID_CONFLICT', 'Another department of the organization already has this external_id.'),
  departments_organization_id_parent_id_fkey: () =>
    new HttpError(422, 'PARENT_NOT_FOUND', 'No department with this parent_id exists in the organization.', { field: 'parent_id', reason: 'not_found' }),
};

interface InsertedRow {
  order: string;
  created_at: Date;
  updated_at: Date;
}

interface NewDepartment {
  name: string;
  externalId: string | null;
  parentId: string | null;
}

export interface CreateOutcome {
  status: number;
  body: string;
  replayed: boolean;
}

/** POST departments with an Idempotency-Key (idempotentCreate). */
export class Departments {
  constructor(private readonly pool: Pool) {}

  create(principal: Principal, actor: Actor, keyHeader: string | string[] | undefined, path: string, body: Record<string, unknown>): Promise<CreateOutcome> {
    const department = parse(body);
    return idempotentCreate(this.pool, principal, keyHeader, path, body, (client) => insert(client, principal.organizationId, department, actor), ERROR_BY_CONSTRAINT);
  }
}

/**
 * A create with an Idempotency-Key: claim the key, run `insert` (the answer's JSON) and store the
 * answer in one transaction, so that the answer is stored exactly when the resource commits.
 */
export async function idempotentCreate(
  pool: Pool,
  principal: Principal,
  keyHeader: string | string[] | undefined,
  path: string,
  body: Record<string, unknown>,
  insert: (client: PoolClient) => Promise<string>,
  errorByConstraint: Record<string, () => HttpError>,
): Promise<CreateOutcome> {
  const key = idempotencyKey(keyHeader);
  const fingerprint = createHash('sha256').update(canonicalJson(['POST', path, body])).digest('hex');
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const claim = await client.query<{ id: string }>({
      name: 'claim',
      text: CLAIM,
      values: [randomUUID(), principal.apiKeyId, key, fingerprint, RETENTION_SECONDS],
    });
    if (claim.rows.length === 0) {
      const outcome = await replay(client, principal.apiKeyId, key, fingerprint);
      await client.query('ROLLBACK');
      return outcome;
    }
    const answer = await insert(client);
    await client.query({ name: 'store-response', text: STORE_RESPONSE, values: [claim.rows[0].id, 201, answer] });
    await client.query('COMMIT');
    return { status: 201, body: answer, replayed: false };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    const known = error instanceof DatabaseError ? errorByConstraint[error.constraint ?? ''] : undefined;
    throw known ? known() : error;
  } finally {
    client.release();
  }
}

async function replay(client: PoolClient, apiKeyId: string, key: string, fingerprint: string): Promise<CreateOutcome> {
  const { rows } = await client.query<{ fingerprint: string; status_code: number; response_body: string }>({
    name: 'read-record',
    text: READ_RECORD,
    values: [apiKeyId, key],
  });
  const record = rows[0];
  if (record !== undefined && record.fingerprint !== fingerprint) {
    throw new HttpError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request (method, path or body).');
  }
  if (record === undefined || record.status_code === 0) {
    throw new HttpError(409, 'IDEMPOTENCY_REQUEST_IN_PROGRESS', 'A request with this Idempotency-Key is still being processed; retry after it completes.', undefined, {
      'Retry-After': '1',
    });
  }
  return { status: record.status_code, body: record.response_body, replayed: true };
}

async function insert(client: PoolClient, organizationId: string, department: NewDepartment, actor: Actor): Promise<string> {
  const { name, externalId, parentId } = department;
  const id = randomUUID();
  await client.query({ name: 'lock-siblings', text: LOCK_SIBLINGS, values: [`departments:${organizationId}:${parentId ?? 'top'}`] });
  const audit = auditParameters(actor).values;
  const { rows } = await (parentId === null
    ? client.query<InsertedRow>({ name: 'insert-top-level', text: INSERT_TOP_LEVEL, values: [id, organizationId, name, externalId, ...audit] })
    : client.query<InsertedRow>({ name: 'insert-child', text: INSERT_CHILD, values: [id, organizationId, name, externalId, parentId, ...audit] }));
  const [row] = rows;
  return JSON.stringify({ department_id: id, external_id: externalId, name, order: Number(row.order), parent_id: parentId, revision: 1, created_at: row.created_at, updated_at: row.updated_at });
}

function idempotencyKey(header: string | string[] | undefined): string {
  if (header === undefined || header === '') {
    throw new HttpError(400, 'IDEMPOTENCY_KEY_MISSING', 'This operation requires an Idempotency-Key header.', { field: 'Idempotency-Key', reason: 'required' });
  }
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY.test(header)) {
    throw invalid('Idempotency-Key', 'invalid_format', 'Idempotency-Key: must be 1 to 255 printable ASCII characters.');
  }
  return header;
}

function parse(body: Record<string, unknown>): NewDepartment {
  refuseUnknownFields(body, ['external_id', 'name', 'parent_id']);
  if (body.name === undefined) throw invalid('name', 'required', 'name: required.');
  return {
    externalId: body.external_id == null ? null : text(body.external_id, 'external_id', 512, false),
    name: text(body.name, 'name', 255, true),
    parentId: body.parent_id == null ? null : uuid(body.parent_id, 'parent_id'),
  };
}

/** JSON with every object's keys sorted, so that key order does not change the fingerprint. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
