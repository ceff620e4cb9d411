import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { HttpError, invalid } from './http';
import { uuid } from './input';

const COLUMNS = 'id AS department_id, external_id, name, "order"::float8 AS "order", parent_id, revision::float8 AS revision, created_at, updated_at';
const GET = `SELECT ${COLUMNS} FROM departments WHERE organization_id = $1 AND id = $2`;
const FIRST_PAGE = `SELECT ${COLUMNS} FROM departments WHERE organization_id = $1 AND parent_id IS NOT DISTINCT FROM $2 ORDER BY "order", id LIMIT $3`;
const NEXT_PAGE = `SELECT ${COLUMNS} FROM departments WHERE organization_id = $1 AND parent_id IS NOT DISTINCT FROM $2
  AND ("order", id) > ($4::bigint, $5::uuid) ORDER BY "order", id LIMIT $3`;
const PARENT_EXISTS = 'SELECT 1 FROM departments WHERE organization_id = $1 AND id = $2';

interface DepartmentRow {
  department_id: string;
  order: number;
}

/** The directory reads with the leanest SQL: one indexed statement per answer (the parent looked at only for an empty page). */
export class DepartmentReads {
  constructor(private readonly pool: Pool) {}

  async get(organizationId: string, departmentId: string): Promise<string> {
    const { rows } = await this.pool.query(GET, [organizationId, departmentId]);
    if (rows.length === 0) throw new HttpError(404, 'NOT_FOUND', `No department ${departmentId} exists in this organization.`);
    return JSON.stringify(rows[0]);
  }

  async list(organizationId: string, query: URLSearchParams): Promise<string> {
    const parentId = query.has('parent_id') ? uuid(query.get('parent_id'), 'parent_id') : null;
    const pageSizeText = query.get('page_size') ?? '20';
    const pageSize = /^\d{1,3}$/.test(pageSizeText) ? Number(pageSizeText) : NaN;
    if (!(pageSize >= 1 && pageSize <= 100)) throw invalid('page_size', 'invalid_value', 'page_size: must be an integer from 1 to 100.');
    const tag = createHash('sha256').update(`${organizationId}|${parentId ?? ''}`).digest('base64url').slice(0, 16);
    const token = query.get('page_token');
    let rows: DepartmentRow[];
    if (token === null) {
      rows = (await this.pool.query<DepartmentRow>(FIRST_PAGE, [organizationId, parentId, pageSize + 1])).rows;
    } else {
      const [tokenTag, after, id] = Buffer.from(token, 'base64url').toString().split('|');
      if (tokenTag !== tag || !/^\d{1,19}$/.test(after ?? '')) throw invalid('page_token', 'invalid_value', 'page_token is not a token of this query.');
      rows = (await this.pool.query<DepartmentRow>(NEXT_PAGE, [organizationId, parentId, pageSize + 1, after, uuid(id, 'page_token')])).rows;
    }
    if (rows.length === 0 && parentId !== null && (await this.pool.query(PARENT_EXISTS, [organizationId, parentId])).rows.length === 0) {
      throw new HttpError(404, 'NOT_FOUND', `No department ${parentId} exists in this organization.`);
    }
    const page = rows.slice(0, pageSize);
    const last = page[page.length - 1];
    const next = rows.length > pageSize ? Buffer.from(`${tag}|${last.order}|${last.department_id}`).toString('base64url') : null;
    return JSON.stringify({ items: page, next_page_token: next });
  }
}
