import { randomUUID } from 'node:crypto';
import { addParityEndpoints, auditTrailDifferences, removeParityEndpoints } from './audit-parity';
import type { Fixture } from './databases';
import type { Side } from './results';

const API = '/api/openapi/v1';

interface Answer {
  status: number;
  text: string;
  body: Record<string, unknown>;
  requestId: string | null;
  replayed: string | null;
}

interface Probe {
  label: string;
  method: string;
  path: string;
  token?: string;
  body?: unknown;
  idempotencyKey?: string;
  /** Fields whose values must be equal on both sides (ids and times differ by nature). */
  sameValues?: string[];
}

/** A server under test and its database. */
export interface ParitySide {
  baseUrl: string;
  databaseUrl: string;
}

/**
 * Sends the same short sequence of requests to both servers (fresh databases with the same
 * fixture) and lists every difference in status, body fields, error code or headers that matter.
 * Also checks on each side that a replay is byte-for-byte the first answer, and that both wrote
 * the same audit events and webhook deliveries (auditTrailDifferences), with webhook endpoints
 * subscribed for the probes only.
 */
export async function compareAnswers(sides: Record<Side, ParitySide>, fixture: Fixture): Promise<string[]> {
  const suiteId = fixture.suiteIds[fixture.suiteIds.length - 1];
  const department = { name: 'Parity department', external_id: 'parity-1' };
  const [firstDepartment, secondDepartment, thirdDepartment] = fixture.departmentIds;
  const [firstUser, secondUser] = fixture.userIds;
  const member = (departmentId: string, userId: string) => `${API}/departments/${departmentId}/members/${userId}`;
  const user = ['user_name', 'department_ids', 'primary_department_id', 'revision'];
  const probes: Probe[] = [
    { label: 'GET metering-policy', method: 'GET', path: `${API}/metering-policy`, sameValues: ['cycle_mode', 'data_status', 'next_reset_at'] },
    { label: 'PATCH display_name', method: 'PATCH', path: `${API}/expert-suites/${suiteId}`, body: { display_name: '  Parity  ' }, sameValues: ['display_name', 'revision', 'market_item_revision', 'status'] },
    { label: 'PATCH same display_name (unchanged)', method: 'PATCH', path: `${API}/expert-suites/${suiteId}`, body: { display_name: 'Parity' }, sameValues: ['revision'] },
    { label: 'PATCH unknown suite', method: 'PATCH', path: `${API}/expert-suites/${randomUUID()}`, body: { display_name: 'x' } },
    { label: 'POST department', method: 'POST', path: `${API}/departments`, body: department, idempotencyKey: 'parity', sameValues: ['name', 'external_id', 'order', 'parent_id'] },
    { label: 'POST department replay', method: 'POST', path: `${API}/departments`, body: department, idempotencyKey: 'parity', sameValues: ['name', 'order'] },
    { label: 'POST department, key reused with another body', method: 'POST', path: `${API}/departments`, body: { name: 'Other' }, idempotencyKey: 'parity' },
    { label: 'POST department, same name', method: 'POST', path: `${API}/departments`, body: { name: 'PARITY department' }, idempotencyKey: 'parity-2' },
    { label: 'POST department without Idempotency-Key', method: 'POST', path: `${API}/departments`, body: department },
    { label: 'GET department', method: 'GET', path: `${API}/departments/${fixture.departmentIds[0]}`, sameValues: ['department_id', 'external_id', 'name', 'order', 'parent_id'] },
    { label: 'GET unknown department', method: 'GET', path: `${API}/departments/${randomUUID()}` },
    { label: 'GET departments, first page', method: 'GET', path: `${API}/departments?page_size=3`, sameValues: ['items'] },
    { label: 'GET departments, page_size 0', method: 'GET', path: `${API}/departments?page_size=0` },
    { label: 'GET metering-policy with an unknown key', method: 'GET', path: `${API}/metering-policy`, token: `wsk_${'0'.repeat(40)}` },
    { label: 'PATCH department move', method: 'PATCH', path: `${API}/departments/${secondDepartment}`, body: { parent_id: firstDepartment }, sameValues: ['parent_id', 'order', 'revision'] },
    { label: 'PATCH department move back to the top level', method: 'PATCH', path: `${API}/departments/${secondDepartment}`, body: { parent_id: null }, sameValues: ['parent_id', 'order', 'revision'] },
    { label: 'POST user', method: 'POST', path: `${API}/users`, body: { user_name: 'Parity user', department_ids: [thirdDepartment] }, idempotencyKey: 'parity-user', sameValues: user },
    { label: 'PATCH user display_name', method: 'PATCH', path: `${API}/users/${firstUser}`, body: { display_name: 'Parity' }, sameValues: [...user, 'display_name'] },
    { label: 'PUT member (the user has a primary)', method: 'PUT', path: member(thirdDepartment, firstUser), sameValues: user },
    { label: 'DELETE member (the primary: the next one takes over)', method: 'DELETE', path: member(firstDepartment, firstUser) },
    { label: 'DELETE member (the last: no primary left)', method: 'DELETE', path: member(secondDepartment, secondUser) },
    { label: 'PUT member (the user has no primary)', method: 'PUT', path: member(secondDepartment, secondUser), sameValues: user },
  ];
  const differences: string[] = [];
  const answers: Record<string, Answer[]> = {};
  try {
    for (const side of ['service', 'lean'] as const) {
      await addParityEndpoints(sides[side].databaseUrl, fixture);
      answers[side] = [];
      for (const probe of probes) answers[side].push(await send(sides[side].baseUrl, probe, probe.token ?? fixture.main.token));
      const [created, replayed] = ['POST department', 'POST department replay'].map((label) => answers[side][probes.findIndex((probe) => probe.label === label)]);
      if (replayed.text !== created.text) differences.push(`${side}: the replay is not byte-for-byte the first answer`);
    }
    differences.push(...(await auditTrailDifferences({ service: sides.service.databaseUrl, lean: sides.lean.databaseUrl }, fixture)));
  } finally {
    for (const side of ['service', 'lean'] as const) await removeParityEndpoints(sides[side].databaseUrl);
  }
  probes.forEach((probe, i) => {
    const [service, lean] = [answers.service[i], answers.lean[i]];
    const differ = (what: string, a: unknown, b: unknown) => {
      if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`${probe.label}: ${what} service ${JSON.stringify(a)}, lean ${JSON.stringify(b)}`);
    };
    differ('status', service.status, lean.status);
    differ('fields', Object.keys(service.body), Object.keys(lean.body));
    differ('code', service.body.code, lean.body.code);
    differ('Idempotent-Replayed', service.replayed, lean.replayed);
    differ('X-Request-Id present', service.requestId !== null, lean.requestId !== null);
    for (const field of probe.sameValues ?? []) differ(field, service.body[field], lean.body[field]);
  });
  return differences;
}

async function send(baseUrl: string, probe: Probe, token: string): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (probe.body !== undefined) headers['content-type'] = 'application/json';
  if (probe.idempotencyKey !== undefined) headers['idempotency-key'] = probe.idempotencyKey;
  const response = await fetch(`${baseUrl}${probe.path}`, {
    method: probe.method,
    headers,
    body: probe.body === undefined ? undefined : JSON.stringify(probe.body),
  });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // compared as an empty body
  }
  return { status: response.status, text, body, requestId: response.headers.get('x-request-id'), replayed: response.headers.get('idempotent-replayed') };
}
