#!/usr/bin/env node
// Where a CPU profile's time goes, per layer of the service's request path, as a markdown table.
//
//   node scripts/cpu-profile-layers.mjs <file.cpuprofile> [<other.cpuprofile>] [--cpu-us-per-request <µs>[,<other µs>]] [--top <n>]
//
// The profile is one the service (or the lean baseline) wrote under load (docs/performance.md,
// "How to measure": BENCH_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR", BENCH_LEAN_NODE_ARGS
// the same for the lean baseline, npm run bench). Only samples from the
// first HTTP request on count, so that start-up (module loading, compiling) stays out; idle time is
// left out of the shares; each sample counts as one sampling interval. Each sample's time goes to the layer of its innermost frame that names
// one: a builtin without a script (JSON.stringify, Array.prototype.map, RegExp) or node:events
// counts for the layer that called it. With --cpu-us-per-request (the bench's CPU µs/req of the
// same run), each share is also shown as µs per request. A second profile (the lean baseline's of
// the same run) goes beside the first, with the difference per layer. --top lists each layer's
// busiest functions. Shares hold up under machine load far better than absolute µs do.
import { readFileSync } from 'node:fs';

/** Layers in the order of the table; the first whose test matches a frame's url (or name) takes it. */
const LAYERS = [
  { name: 'garbage collection', test: (frame) => frame.functionName === '(garbage collector)' },
  { name: 'V8 and native code outside JavaScript (program)', test: (frame) => frame.functionName === '(program)' },
  { name: 'HTTP server (node:http: parsing, headers, response writes)', test: urlHas('node:_http_', 'node:http', 'node:internal/http') },
  { name: 'Express and its middleware packages', test: packages('express', 'router', 'finalhandler', 'parseurl', 'qs', 'on-finished', 'accepts', 'type-is', 'content-type', 'mime-types', 'negotiator', 'encodeurl', 'escape-html', 'statuses', 'depd', 'http-errors', 'proxy-addr', 'forwarded', 'vary', 'etag', 'fresh', 'range-parser', 'cookie', 'helmet', 'cors', 'path-to-regexp', 'send', 'serve-static') },
  { name: 'Nest core (routing, guards, interceptors, pipes: the framework)', test: packages('@nestjs/core', '@nestjs/common', '@nestjs/platform-express', 'rxjs', 'reflect-metadata', 'tslib') },
  { name: 'API key authentication and scope guards (src/common/auth)', test: urlHas('/src/common/auth/', '/src/common/sha256') },
  { name: 'request pipeline of our own (src/common/http, errors, routing)', test: (frame) => urlHas('/src/common/http/', '/src/common/errors/', '/src/common/routing/')(frame) && !urlHas('json-body-parser', 'body-read-errors', 'json-reply')(frame) },
  { name: 'body parsing and duplicate-key scan', test: (frame) => urlHas('/src/common/http/json-body-parser', '/src/common/http/body-read-errors', '/src/common/json/')(frame) && !urlHas('canonical-json')(frame) || packages('raw-body', 'iconv-lite', 'bytes')(frame) },
  { name: 'validation (class-validator, class-transformer, our rules)', test: (frame) => packages('class-validator', 'class-transformer', 'validator', 'libphonenumber-js')(frame) || urlHas('/src/common/validation/')(frame) },
  { name: 'idempotency (fingerprint, record)', test: urlHas('/src/common/idempotency/', '/src/common/json/canonical-json') },
  { name: 'statement building (Prisma.sql, repositories, audit kit, src/database)', test: (frame) => urlHas('/src/generated/', '/src/common/audit/', '.repository.js', '/src/common/writes/')(frame) || packages('@prisma/client')(frame) || (urlHas('/src/database/')(frame) && !urlHas('deadline', 'lock-wait', 'pipelined-client')(frame)) },
  { name: 'SQL driver adapter (@prisma/adapter-pg: arguments, result conversion)', test: packages('@prisma/adapter-pg', '@prisma/driver-adapter-utils', 'pglite-prisma-adapter') },
  { name: 'statement deadlines and timers (deadline-client, node:timers)', test: urlHas('/src/database/deadline-client', '/src/database/deadline-sweeper', '/src/database/transaction-deadline', '/src/database/lock-wait', 'node:internal/timers', 'node:timers') },
  { name: 'pg pool and protocol', test: (frame) => urlHas('/src/database/pipelined-client')(frame) || packages('pg', 'pg-pool', 'pg-protocol', 'pg-types', 'pg-connection-string', 'postgres-array', 'postgres-date', 'postgres-interval', 'postgres-bytea', 'pgpass', 'split2')(frame) },
  { name: 'response serialization (json-reply, mappers)', test: urlHas('/src/common/http/json-reply', '.mapper.js') },
  { name: 'logging (pino)', test: (frame) => packages('pino', 'pino-http', 'nestjs-pino', 'pino-std-serializers', 'sonic-boom', 'thread-stream', 'fast-redact', 'on-exit-leak-free', 'quick-format-unescaped', 'atomic-sleep')(frame) || urlHas('/src/common/logging/')(frame) },
  { name: 'metrics (prom-client)', test: (frame) => packages('prom-client', 'tdigest', 'bintrees')(frame) || urlHas('/src/common/metrics/')(frame) },
  { name: 'async context (nestjs-cls, AsyncLocalStorage, promise hooks)', test: (frame) => packages('nestjs-cls', '@nestjs-cls/transactional')(frame) || urlHas('node:internal/async_hooks', 'node:internal/async_local_storage', 'node:async_hooks')(frame) },
  { name: 'rate limit (throttler)', test: (frame) => packages('@nestjs/throttler', '@nest-lab/throttler-storage-redis', 'ioredis')(frame) || urlHas('/src/common/rate-limit/')(frame) },
  { name: 'our code, other (controllers, services, modules)', test: urlHas('/src/') },
  { name: 'the lean baseline\'s own code (bench/lean: routing, checks, SQL, answers)', test: urlHas('/bench/lean/') },
  { name: 'Node.js internals, other (task queues, crypto, buffers)', test: urlHas('node:') },
];
const OTHER_PACKAGE = (name) => `other package: ${name}`;
const UNATTRIBUTED = 'builtins with no caller of ours (unattributed)';

function urlHas(...parts) {
  return (frame) => parts.some((part) => frame.url.includes(part));
}

/** A frame of one of these npm packages (the innermost node_modules/<package>/ of its url). */
function packages(...names) {
  const wanted = new Set(names);
  return (frame) => wanted.has(packageOf(frame.url));
}

function packageOf(url) {
  const at = url.lastIndexOf('/node_modules/');
  if (at === -1) return undefined;
  const [first, second] = url.slice(at + '/node_modules/'.length).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
}

const SOCKETS = 'sockets and streams with no caller of ours (reads from the event loop)';

/**
 * Frames that stand for no layer of their own: the caller's layer takes their time. A socket
 * write (writev, writeUtf8String) is the HTTP response's or a statement's, by who called it.
 */
function passesToCaller(frame) {
  return (frame.url === '' && !frame.functionName.startsWith('(')) || frame.url === 'node:events' || isSocketOrStream(frame) || isHelper(frame);
}

function isSocketOrStream(frame) {
  return urlHas('node:net', 'node:internal/stream', 'node:stream', 'node:internal/streams')(frame);
}

/** Helpers every layer calls (buffers, argument checks): their time is the caller's. */
function isHelper(frame) {
  return urlHas('node:buffer', 'node:internal/buffer', 'node:internal/validators', 'node:internal/util')(frame);
}

function layerOf(frame) {
  const layer = LAYERS.find((candidate) => candidate.test(frame));
  if (layer) return layer.name;
  const name = packageOf(frame.url);
  return name === undefined ? undefined : OTHER_PACKAGE(name);
}

function parseArguments(argv) {
  const files = argv.filter((arg, i) => !arg.startsWith('--') && !(argv[i - 1] ?? '').startsWith('--'));
  const option = (name) => {
    const at = argv.indexOf(name);
    return at === -1 ? undefined : argv[at + 1];
  };
  if (files.length < 1 || files.length > 2) {
    console.error('usage: node scripts/cpu-profile-layers.mjs <file.cpuprofile> [<other.cpuprofile>] [--cpu-us-per-request <µs>[,<other µs>]] [--top <n>]');
    process.exit(2);
  }
  const cpu = (option('--cpu-us-per-request') ?? '').split(',').map((value) => (value === '' ? undefined : Number(value)));
  return { profiles: files.map((file, i) => ({ file, cpuUsPerRequest: cpu[i] })), top: Number(option('--top') ?? 0) };
}

/** The profile's busy time from its first HTTP request on, per layer and per function (µs). */
function layersOf(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

  // A request's handling, not the loading of node:_http_server's module at start-up, which has
  // frames of that url too (start-up then counted as the requests' Node.js internals).
  const isRequest = (id) => {
    for (let at = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at).callFrame;
      if (frame.functionName === 'parserOnIncoming' && frame.url.startsWith('node:_http_server')) return true;
    }
    return false;
  };
  const layerMemo = new Map();
  const attribute = (id) => {
    if (layerMemo.has(id)) return layerMemo.get(id);
    let result = UNATTRIBUTED;
    let socketSeen = false;
    for (let at = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at).callFrame;
      socketSeen ||= isSocketOrStream(frame);
      if (passesToCaller(frame)) continue;
      result = layerOf(frame) ?? (socketSeen ? SOCKETS : UNATTRIBUTED);
      break;
    }
    if (result === UNATTRIBUTED && socketSeen) result = SOCKETS;
    layerMemo.set(id, result);
    return result;
  };

  const { samples, timeDeltas } = profile;
  // Each sample weighs the median sampling interval, not the gap to the next sample: on a busy
  // machine the thread is often descheduled, and the sample taken when it runs again would carry
  // the whole wait (the gaps summed to 4× the process's CPU time in one profile under load).
  const interval = [...timeDeltas].sort((a, b) => a - b)[timeDeltas.length >> 1];
  const first = samples.findIndex(isRequest);
  if (first === -1) throw new Error(`${file}: no sample inside an HTTP request`);
  const byLayer = new Map();
  const byFunction = new Map();
  let busy = 0;
  let idle = 0;
  for (let i = first; i < samples.length; i++) {
    const micros = interval;
    const node = byId.get(samples[i]);
    if (node.callFrame.functionName === '(idle)') {
      idle += micros;
      continue;
    }
    busy += micros;
    const layer = attribute(samples[i]);
    byLayer.set(layer, (byLayer.get(layer) ?? 0) + micros);
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${layer}\t${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist)\//, '')}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
  }
  return { busy, idle, byLayer, byFunction };
}

function main() {
  const { profiles, top } = parseArguments(process.argv.slice(2));
  const measured = profiles.map((profile) => ({ ...profile, ...layersOf(profile.file) }));
  for (const { file, busy, idle } of measured) console.log(`${file}: ${(busy / 1e6).toFixed(2)} s busy, ${(idle / 1e6).toFixed(2)} s idle from the first request on`);
  console.log('');

  const perRequest = measured.every(({ cpuUsPerRequest }) => cpuUsPerRequest !== undefined && Number.isFinite(cpuUsPerRequest));
  const share = (profile, layer) => (profile.byLayer.get(layer) ?? 0) / profile.busy;
  const micros = (profile, layer) => share(profile, layer) * profile.cpuUsPerRequest;
  const layers = [...new Set(measured.flatMap((profile) => [...profile.byLayer.keys()]))].sort((a, b) =>
    perRequest ? micros(measured[0], b) - micros(measured[0], a) : share(measured[0], b) - share(measured[0], a),
  );
  const columns = measured.flatMap((_, i) => {
    const side = measured.length === 2 ? ` (${i === 0 ? 'first' : 'second'})` : '';
    return [`share${side}`, ...(perRequest ? [`µs/request${side}`] : [])];
  });
  if (perRequest && measured.length === 2) columns.push('µs/request, first − second');
  console.log(`| layer | ${columns.join(' | ')} |`);
  console.log(`|---|${columns.map(() => '---:').join('|')}|`);
  for (const layer of layers) {
    const cells = measured.flatMap((profile) => [`${(share(profile, layer) * 100).toFixed(1)} %`, ...(perRequest ? [micros(profile, layer).toFixed(0)] : [])]);
    if (perRequest && measured.length === 2) cells.push((micros(measured[0], layer) - micros(measured[1], layer)).toFixed(0));
    console.log(`| ${layer} | ${cells.join(' | ')} |`);
  }
  if (perRequest) {
    const totals = measured.flatMap((profile) => ['100 %', profile.cpuUsPerRequest.toFixed(0)]);
    if (measured.length === 2) totals.push((measured[0].cpuUsPerRequest - measured[1].cpuUsPerRequest).toFixed(0));
    console.log(`| **all** | ${totals.join(' | ')} |`);
  }

  for (const profile of top > 0 ? measured : []) {
    console.log(`\nBusiest functions per layer, ${profile.file}:`);
    for (const layer of layers) {
      const functions = [...profile.byFunction].filter(([key]) => key.startsWith(`${layer}\t`)).sort((a, b) => b[1] - a[1]).slice(0, top);
      if (functions.length === 0) continue;
      console.log(`\n${layer}:`);
      for (const [key, value] of functions) console.log(`  ${((value / profile.busy) * 100).toFixed(2).padStart(6)} %  ${key.split('\t')[1]}`);
    }
  }
}

main();
