#!/usr/bin/env node
// Counts what PostgreSQL receives per request (docs/scaling.md, "Statements and connections per
// request"): a scratch database with `log_statement = all`, the built service on it (`npm run build`
// first), each request sent once to warm up and once measured, and the server log's lines of that
// database in between: statements (`statement:` and `execute` lines) and server processes (pids,
// i.e. connections). Reads the server log, so run it beside the server, as a user who may read it.
//
//   node scripts/statements-per-request.mjs
//
// Environment: PG_URL (a maintenance database, postgresql://postgres@127.0.0.1:5432/postgres),
// PG_LOG (/var/log/postgresql/postgresql-15-main.log), and any service setting to try, e.g.
// DATABASE_PREPARED_STATEMENTS=0 or DATABASE_NOTIFICATIONS=off.
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { openSync, readSync, statSync, closeSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

const SERVER = process.env.PG_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const LOG = process.env.PG_LOG || '/var/log/postgresql/postgresql-15-main.log';
const DATABASE = `wsa_statements_${process.pid}`;
const API = '/api/openapi/v1';
const SCOPES = 'admin.v1.user-directory.read,admin.v1.user-directory.manage,admin.v1.expert-suites.manage,admin.v1.quota.read,admin.v1.scim.provision';

const url = new URL(SERVER);
url.pathname = `/${DATABASE}`;
const databaseUrl = url.toString();
// No webhook worker unless asked for: its polls of the outbox are no request's statements, and one
// landing between a request's log marks was counted as the request's.
const env = { WEBHOOK_WORKER_ENABLED: 'false', ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' };

async function onServer(sql) {
  const client = new pg.Client({ connectionString: SERVER });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const cli = (...args) => JSON.parse(execFileSync('node', ['dist/src/cli/main.js', ...args], { env, encoding: 'utf8' }));

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function logSince(offset) {
  const size = statSync(LOG).size;
  const buffer = Buffer.alloc(size - offset);
  const fd = openSync(LOG, 'r');
  readSync(fd, buffer, 0, buffer.length, offset);
  closeSync(fd);
  return buffer.toString('utf8');
}

async function main() {
  await onServer(`CREATE DATABASE "${DATABASE}"`);
  let service;
  try {
    execFileSync('node', ['dist/src/database/migrate.main.js'], { env, stdio: 'ignore' });
    const organization = cli('org', 'create', '--name', 'Statements');
    const key = cli('apikey', 'create', '--org', organization.id, '--scopes', SCOPES);
    const suite = cli('expert-suite', 'create', '--org', organization.id, '--name', 'statements');
    await onServer(`ALTER DATABASE "${DATABASE}" SET log_statement = 'all'`);

    const port = await freePort();
    service = spawn('node', ['dist/src/main.js'], { env: { ...env, PORT: String(port) }, stdio: 'ignore' });
    const base = `http://127.0.0.1:${port}`;
    for (let waited = 0; ; waited += 100) {
      const status = await fetch(`${base}/readyz`).then((response) => response.status, () => 0);
      if (status === 200) break;
      if (waited > 30_000) throw new Error('the service did not become ready');
      await sleep(100);
    }
    const headers = { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' };
    const replayKey = randomUUID();
    let departmentId;
    let parentId;
    let movableId;
    let leaves = [];
    let userId;
    let memberId;
    let round = 0;
    const requests = [
      ['POST /departments (new key)', () => fetch(`${base}${API}/departments`, { method: 'POST', headers: { ...headers, 'idempotency-key': randomUUID() }, body: JSON.stringify({ name: `New ${round++}` }) })],
      ['POST /departments (replay)', () => fetch(`${base}${API}/departments`, { method: 'POST', headers: { ...headers, 'idempotency-key': replayKey }, body: JSON.stringify({ name: 'Replayed' }) })],
      ['GET /departments/{id}', () => fetch(`${base}${API}/departments/${departmentId}`, { headers })],
      ['GET /departments (a page)', () => fetch(`${base}${API}/departments?page_size=20`, { headers })],
      ['POST /departments (under a parent)', () => fetch(`${base}${API}/departments`, { method: 'POST', headers: { ...headers, 'idempotency-key': randomUUID() }, body: JSON.stringify({ name: `Child ${round++}`, parent_id: parentId }) })],
      ['PATCH /departments/{id} (rename)', () => fetch(`${base}${API}/departments/${departmentId}`, { method: 'PATCH', headers, body: JSON.stringify({ name: `Renamed ${round++}` }) })],
      ['PATCH /departments/{id} (move)', () => fetch(`${base}${API}/departments/${movableId}`, { method: 'PATCH', headers, body: JSON.stringify({ parent_id: round++ % 2 === 0 ? parentId : null }) })],
      ['DELETE /departments/{id}', () => fetch(`${base}${API}/departments/${leaves.pop()}`, { method: 'DELETE', headers })],
      ['GET /departments/{id}/ancestors', () => fetch(`${base}${API}/departments/${movableId}/ancestors`, { headers })],
      ['GET /departments?recursive=true (a page)', () => fetch(`${base}${API}/departments?recursive=true&page_size=20`, { headers })],
      ['PATCH /expert-suites/{id}', () => fetch(`${base}${API}/expert-suites/${suite.id}`, { method: 'PATCH', headers, body: JSON.stringify({ display_name: `Name ${round++}` }) })],
      ['GET /metering-policy', () => fetch(`${base}${API}/metering-policy`, { headers })],
      ['POST /users (new key, one department)', () => fetch(`${base}${API}/users`, { method: 'POST', headers: { ...headers, 'idempotency-key': randomUUID() }, body: JSON.stringify({ user_name: `user-${round++}`, department_ids: [departmentId] }) })],
      ['PATCH /users/{id}', () => fetch(`${base}${API}/users/${userId}`, { method: 'PATCH', headers, body: JSON.stringify({ display_name: `Name ${round++}` }) })],
      ['PATCH /users/{id} (department_ids)', () => fetch(`${base}${API}/users/${userId}`, { method: 'PATCH', headers, body: JSON.stringify({ department_ids: round++ % 2 === 0 ? [] : [departmentId] }) })],
      ['GET /users?user_name=', () => fetch(`${base}${API}/users?user_name=patched`, { headers })],
      ['GET /scim/v2/Users?filter=userName eq', () => fetch(`${base}/scim/v2/Users?filter=${encodeURIComponent('userName eq "patched"')}`, { headers })],
      [
        'PATCH /scim/v2/Users/{id}',
        () =>
          fetch(`${base}/scim/v2/Users/${userId}`, {
            method: 'PATCH',
            headers,
            body: JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', path: 'displayName', value: `Name ${round++}` }] }),
          }),
      ],
      ['PUT /departments/{id}/members/{user_id}', () => fetch(`${base}${API}/departments/${parentId}/members/${memberId}`, { method: 'PUT', headers })],
      ['DELETE /departments/{id}/members/{user_id}', () => fetch(`${base}${API}/departments/${parentId}/members/${memberId}`, { method: 'DELETE', headers })],
    ];
    const made = await (await fetch(`${base}${API}/departments`, { method: 'POST', headers: { ...headers, 'idempotency-key': replayKey }, body: JSON.stringify({ name: 'Replayed' }) })).json();
    departmentId = made.department_id;
    const createTop = async (name) =>
      (await (await fetch(`${base}${API}/departments`, { method: 'POST', headers: { ...headers, 'idempotency-key': randomUUID() }, body: JSON.stringify({ name }) })).json()).department_id;
    parentId = await createTop('Parent');
    movableId = await createTop('Movable');
    leaves = [await createTop('Leaf 1'), await createTop('Leaf 2')];
    const user = await (await fetch(`${base}${API}/users`, { method: 'POST', headers: { ...headers, 'idempotency-key': randomUUID() }, body: JSON.stringify({ user_name: 'patched' }) })).json();
    userId = user.user_id;
    const member = await (await fetch(`${base}${API}/users`, { method: 'POST', headers: { ...headers, 'idempotency-key': randomUUID() }, body: JSON.stringify({ user_name: 'member' }) })).json();
    memberId = member.user_id;
    for (const [, send] of requests) await (await send()).arrayBuffer(); // warm-up: key cache, prepared statements
    await sleep(500);
    console.log('| request | status | statements | of which BEGIN/COMMIT | server connections |');
    console.log('|---|---:|---:|---:|---:|');
    for (const [name, send] of requests) {
      const offset = statSync(LOG).size;
      const response = await send();
      await response.arrayBuffer();
      await sleep(300);
      const lines = logSince(offset).split('\n').filter((line) => line.includes(`@${DATABASE} `) && / LOG: {2}(statement|execute)/.test(line));
      const statements = lines.map((line) => line.replace(/^.* LOG: {2}/, ''));
      const pids = new Set(lines.map((line) => /\[(\d+)\]/.exec(line)?.[1]));
      const framing = statements.filter((text) => /^(statement|execute [^:]+): (BEGIN|COMMIT)\b/.test(text)).length;
      console.log(`| ${name} | ${response.status} | ${statements.length} | ${framing} | ${pids.size} |`);
      if (process.env.VERBOSE) for (const text of statements) console.log(`    ${text.slice(0, 160)}`);
    }
  } finally {
    service?.kill('SIGTERM');
    await sleep(1000);
    await onServer(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
