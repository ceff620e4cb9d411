#!/usr/bin/env node
// Peak memory of the built service under large uploads (docs/uploads.md, "Memory under uploads").
//
//   node scripts/upload-memory.mjs --database postgresql://root@127.0.0.1:5432/wsa_upload_memory [--root DIR] [--env NAME=VALUE ...]
//
// Starts `<root>/dist/src/main.js` as package.json's start script does (its environment and node
// options) against the database (migrated first), makes an organization and a key with the CLI, and
// runs two scenarios, each on a fresh process so that each peak is its own:
//   burst:   20 concurrent uploads of a 19 MiB package (a valid zip), one key;
//   stalled: 30 uploads that send 19 MB of their body and then send nothing more.
// Prints, per scenario, the RSS after start, the peak RSS (VmHWM), the statuses answered and the time.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import yazl from 'yazl';
import { randomBytes } from 'node:crypto';

const { values } = parseArgs({
  options: {
    database: { type: 'string' },
    root: { type: 'string', default: process.cwd() },
    env: { type: 'string', multiple: true, default: [] },
    'stall-seconds': { type: 'string', default: '20' },
  },
});
if (!values.database) throw new Error('--database postgresql://… is required (a database the script may fill)');
const root = resolve(values.root);
const extraEnv = Object.fromEntries(values.env.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
const MIB = 1024 * 1024;
const UPLOADS = '/api/openapi/v1/uploads';

/** The environment assignments and node options of package.json's start script. */
function shippedStart() {
  const script = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts.start;
  const words = script.split(/\s+/);
  const environment = {};
  while (/^[A-Z_]+=/.test(words[0])) {
    const word = words.shift();
    environment[word.slice(0, word.indexOf('='))] = word.slice(word.indexOf('=') + 1);
  }
  if (words.shift() !== 'node') throw new Error(`The start script does not run node: ${script}`);
  return { environment, nodeOptions: words.slice(0, -1), entry: words.at(-1) };
}

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  return port;
}

const baseEnv = { ...process.env, DATABASE_URL: values.database, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', ...extraEnv };

function cli(...args) {
  return JSON.parse(execFileSync(process.execPath, [join(root, 'dist/src/cli/main.js'), ...args], { env: baseEnv, encoding: 'utf8' }));
}

function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)[1]);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function startService() {
  const { environment, nodeOptions, entry } = shippedStart();
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeOptions, join(root, entry)], {
    cwd: root,
    env: { ...baseEnv, ...environment, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const base = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`The service exited: ${stderr}`);
    const status = await fetch(`${base}/readyz`).then((response) => response.status, () => 0);
    if (status === 200) break;
    if (attempt > 600) throw new Error('The service did not become ready');
    await sleep(50);
  }
  await sleep(1000);
  return {
    port,
    pid: child.pid,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'close');
    },
  };
}

async function packageZip(bytes) {
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(JSON.stringify({ name: 'memory-probe', version: '1.0.0' })), 'suite.json');
  zip.addBuffer(randomBytes(bytes), 'assets/noise.bin', { compress: false });
  zip.end();
  const parts = [];
  for await (const part of zip.outputStream) parts.push(part);
  return Buffer.concat(parts);
}

/** The multipart body around `file`: kind first, then the file part. */
function multipart(file) {
  const boundary = `----probe${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="kind"\r\n\r\npackage\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="suite.zip"\r\nContent-Type: application/zip\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { boundary, head, tail, length: head.length + file.length + tail.length };
}

/**
 * Sends an upload on a raw socket. With `stallAfter` only that many bytes of the file are sent, and
 * the socket is kept open, sending nothing, until `release` resolves. Resolves with the status line's
 * code (0 when the connection ended without an answer).
 */
function sendUpload(port, bearer, file, { stallAfter, release } = {}) {
  const body = multipart(file);
  return new Promise((resolvePromise) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const finish = () => resolvePromise(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0));
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1', 0, Math.min(chunk.length, 64));
      if (/^HTTP\/1\.1 \d{3}/.test(answer) && !stallAfter) socket.end();
    });
    socket.on('error', () => undefined);
    socket.on('close', finish);
    socket.on('connect', async () => {
      socket.write(
        `POST ${UPLOADS} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${bearer}\r\n` +
          `Content-Type: multipart/form-data; boundary=${body.boundary}\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      socket.write(body.head);
      const sent = stallAfter ?? file.length;
      for (let offset = 0; offset < sent && !socket.destroyed; offset += 256 * 1024) {
        if (!socket.write(file.subarray(offset, Math.min(offset + 256 * 1024, sent)))) await once(socket, 'drain').catch(() => undefined);
      }
      if (stallAfter) {
        await release;
        socket.destroy();
      } else socket.write(body.tail);
    });
  });
}

function countStatuses(statuses) {
  return Object.fromEntries([...new Set(statuses)].sort().map((status) => [status, statuses.filter((s) => s === status).length]));
}

async function scenario(name, run) {
  const service = await startService();
  const before = memory(service.pid);
  let peakSeen = before.rss;
  const sampler = setInterval(() => {
    try {
      peakSeen = Math.max(peakSeen, memory(service.pid).rss);
    } catch {
      // The process is gone.
    }
  }, 50);
  const started = performance.now();
  const statuses = await run(service);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const after = memory(service.pid);
  await service.stop();
  const result = { scenario: name, rss_after_start_mb: Math.round(before.rss), peak_rss_mb: Math.round(after.peak), rss_at_end_mb: Math.round(after.rss), seconds: Math.round(seconds * 10) / 10, statuses: countStatuses(statuses) };
  console.log(JSON.stringify(result));
  return result;
}

execFileSync(process.execPath, [join(root, 'dist/src/database/migrate.main.js')], { env: baseEnv, stdio: 'ignore' });
const organization = cli('org', 'create', '--name', `upload-memory-${Date.now()}`);
const key = cli('apikey', 'create', '--org', organization.id, '--scopes', 'admin.v1.expert-suites.manage');
const bearer = `Bearer ${key.key}`;
const file = await packageZip(19 * MIB - 200);

await scenario('burst: 20 concurrent 19 MiB package uploads, one key', (service) =>
  Promise.all(Array.from({ length: 20 }, () => sendUpload(service.port, bearer, file))),
);

await scenario(`stalled: 30 uploads that send 19 MB and stall (watched ${values['stall-seconds']} s)`, async (service) => {
  let release;
  const released = new Promise((resolvePromise) => (release = resolvePromise));
  const uploads = Array.from({ length: 30 }, () => sendUpload(service.port, bearer, file, { stallAfter: 19_000_000, release: released }));
  await sleep(Number(values['stall-seconds']) * 1000);
  release();
  return Promise.all(uploads);
});
