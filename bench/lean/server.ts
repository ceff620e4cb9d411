import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool } from 'pg';
import { ApiKeys, type Principal } from './api-keys';
import type { Actor } from './audit';
import { DepartmentMoves } from './department-moves';
import { DepartmentReads } from './department-reads';
import { Departments } from './departments';
import { ExpertSuites } from './expert-suites';
import { HttpError, readJsonObject, sendError, sendJson, setRequestId } from './http';
import { uuid } from './input';
import { Members } from './members';
import { MeteringPolicies } from './metering-policy';
import { UnnamedStatementsClient } from './unnamed-statements';
import { Users } from './users';

/**
 * The lean baseline of `npm run bench`: the service's hot operations (the three writes, a department move and reads) with the contract's
 * answers on bare node:http + pg, each write with the service's audit event and webhook outbox rows
 * in its own statement, as the bare limit to measure the service against. Never part of the product.
 * Env, as the service reads it: DATABASE_URL, PORT, DATABASE_POOL_SIZE (10, the service's default),
 * and behind a pooler DATABASE_DIRECT_URL (LISTEN) and DATABASE_PREPARED_STATEMENTS=0 (unnamed
 * statements).
 */
const API = '/api/openapi/v1';
const SUITE_PATH = new RegExp(`^${API}/expert-suites/([^/]+)$`);
const DEPARTMENT_PATH = new RegExp(`^${API}/departments/([^/]+)$`);
const USER_PATH = new RegExp(`^${API}/users/([^/]+)$`);
const MEMBER_PATH = new RegExp(`^${API}/departments/([^/]+)/members/([^/]+)$`);
// Connection-level failures: the database is unreachable, not the request wrong.
const UNREACHABLE = /^(08|57P0)|^ECONN|^ETIMEDOUT$/;

const connectionString = process.env.DATABASE_URL ?? '';
const unnamedStatements = process.env.DATABASE_PREPARED_STATEMENTS === '0';
const pool = new Pool({ connectionString, max: Number(process.env.DATABASE_POOL_SIZE ?? 10), ...(unnamedStatements ? { Client: UnnamedStatementsClient } : {}) });
const apiKeys = new ApiKeys(pool, process.env.DATABASE_DIRECT_URL || connectionString);
const meteringPolicies = new MeteringPolicies(pool);
const expertSuites = new ExpertSuites(pool);
const departments = new Departments(pool);
const departmentReads = new DepartmentReads(pool);
const departmentMoves = new DepartmentMoves(pool);
const users = new Users(pool);
const members = new Members(pool);

async function route(request: IncomingMessage, response: ServerResponse, requestId: string): Promise<void> {
  const [path, search = ''] = (request.url ?? '/').split('?');
  const { method } = request;
  const authorization = request.headers.authorization;

  if (method === 'GET' && path === `${API}/metering-policy`) {
    const principal = await apiKeys.authenticate(authorization, 'admin.v1.quota.read');
    return sendJson(response, 200, await meteringPolicies.read(principal.organizationId));
  }
  const suite = method === 'PATCH' ? SUITE_PATH.exec(path) : null;
  if (suite) {
    const principal = await apiKeys.authenticate(authorization, 'admin.v1.expert-suites.manage');
    const suiteId = uuid(suite[1], 'resourceId');
    return sendJson(response, 200, await expertSuites.update(principal.organizationId, actorOf(principal, requestId), suiteId, await readJsonObject(request)));
  }
  if (method === 'POST' && path === `${API}/departments`) {
    const principal = await apiKeys.authenticate(authorization, 'admin.v1.user-directory.manage');
    const outcome = await departments.create(principal, actorOf(principal, requestId), request.headers['idempotency-key'], path, await readJsonObject(request));
    return sendJson(response, outcome.status, outcome.body, outcome.replayed ? { 'Idempotent-Replayed': 'true' } : {});
  }
  const moved = method === 'PATCH' ? DEPARTMENT_PATH.exec(path) : null;
  if (moved) {
    const principal = await apiKeys.authenticate(authorization, 'admin.v1.user-directory.manage');
    return sendJson(response, 200, await departmentMoves.move(principal.organizationId, actorOf(principal, requestId), uuid(moved[1], 'department_id'), await readJsonObject(request)));
  }
  const department = method === 'GET' ? DEPARTMENT_PATH.exec(path) : null;
  if (department) {
    const principal = await apiKeys.authenticate(authorization, 'admin.v1.user-directory.read');
    return sendJson(response, 200, await departmentReads.get(principal.organizationId, uuid(department[1], 'department_id')));
  }
  if (method === 'GET' && path === `${API}/departments`) {
    const principal = await apiKeys.authenticate(authorization, 'admin.v1.user-directory.read');
    return sendJson(response, 200, await departmentReads.list(principal.organizationId, new URLSearchParams(search)));
  }
  if (method === 'POST' && path === `${API}/users`) {
    const principal = await apiKeys.authenticate(authorization, 'admin.v1.user-directory.manage');
    const outcome = await users.create(principal, actorOf(principal, requestId), request.headers['idempotency-key'], path, await readJsonObject(request));
    return sendJson(response, outcome.status, outcome.body, outcome.replayed ? { 'Idempotent-Replayed': 'true' } : {});
  }
  const user = method === 'PATCH' ? USER_PATH.exec(path) : null;
  if (user) {
    const principal = await apiKeys.authenticate(authorization, 'admin.v1.user-directory.manage');
    return sendJson(response, 200, await users.update(principal.organizationId, actorOf(principal, requestId), uuid(user[1], 'user_id'), await readJsonObject(request)));
  }
  const member = method === 'PUT' || method === 'DELETE' ? MEMBER_PATH.exec(path) : null;
  if (member) {
    const principal = await apiKeys.authenticate(authorization, 'admin.v1.user-directory.manage');
    const [departmentId, userId] = [uuid(member[1], 'department_id'), uuid(member[2], 'user_id')];
    if (method === 'PUT') {
      const added = await members.add(principal.organizationId, actorOf(principal, requestId), departmentId, userId);
      return sendJson(response, added.status, added.body);
    }
    await members.remove(principal.organizationId, actorOf(principal, requestId), departmentId, userId);
    response.writeHead(204).end();
    return;
  }
  if (method === 'GET' && path === '/readyz') {
    await pool.query('SELECT 1');
    return sendJson(response, 200, '{"status":"ready"}');
  }
  throw new HttpError(404, 'NOT_FOUND', 'No such resource.');
}

function actorOf(principal: Principal, requestId: string): Actor {
  return { apiKeyId: principal.apiKeyId, requestId };
}

function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (UNREACHABLE.test(String((error as { code?: unknown }).code ?? ''))) {
    return new HttpError(503, 'SERVICE_UNAVAILABLE', 'The database is unreachable. Retry later.');
  }
  process.stderr.write(`lean server: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return new HttpError(500, 'INTERNAL_ERROR', 'An unexpected error occurred. Quote the X-Request-Id when reporting it.');
}

async function main(): Promise<void> {
  await apiKeys.start();
  const server = createServer((request, response) => {
    const requestId = setRequestId(request, response);
    route(request, response, requestId).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, toHttpError(error));
    });
  });
  server.listen(Number(process.env.PORT ?? 3001), '127.0.0.1');
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void Promise.allSettled([apiKeys.stop(), pool.end()]).then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`lean server failed to start: ${String(error)}\n`);
  process.exit(1);
});
