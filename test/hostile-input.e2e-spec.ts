import { randomUUID } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { expectErrorBody } from './support/error-body';
import { rawRequest, type RawRequest } from './support/raw-http';
import { createTenant, useTestApp, type TestTenant } from './support/test-app';
import { breakCrc, buildZip, packageEntries, renameEntry, withCp437Names } from './support/zip-builder';

/**
 * Hostile input, table-driven: every request below must get a 4xx with the error body and a
 * stable code, an X-Request-Id, nothing internal in the body, and must write nothing.
 */

const DEPARTMENTS = '/api/openapi/v1/departments';
const UPLOADS = '/api/openapi/v1/uploads';
const suitePath = (id: string) => `/api/openapi/v1/expert-suites/${id}`;
const JSON_LIMIT = 1024 * 1024;

interface Context {
  bearer: string;
  otherBearer: string;
  suiteId: string;
  /** Packages built before the run (zips are built asynchronously), by name. */
  packages: Record<string, Buffer>;
}

type Headers = Array<[string, string]>;

interface HostileCase {
  request: (context: Context) => RawRequest;
  status: number;
  code: string;
  details?: { field: string; reason: string };
}

const ERROR_TYPES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  431: 'request_header_fields_too_large',
};

/** What a body must never show: stack frames, SQL, file paths, driver names. */
const LEAKS = [/\bat \S+ \(/, /:\d+:\d+\)/, /\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b/i, /\/work\//, /node_modules/, /prisma|PGlite|postgres/i, /22021|22P05|SQLSTATE/, /stack/i];

// --- request builders ---------------------------------------------------------------------------

interface Options {
  /** Replaces (or with null removes) a default header. */
  set?: Record<string, string | null>;
  /** Appended after the defaults, repeats allowed. */
  add?: Headers;
}

function withHeaders(defaults: Headers, { set = {}, add = [] }: Options): Headers {
  const names = new Set(Object.keys(set).map((name) => name.toLowerCase()));
  const kept = defaults.filter(([name]) => !names.has(name.toLowerCase()));
  const replaced = Object.entries(set).filter((entry): entry is [string, string] => entry[1] !== null);
  return [...kept, ...replaced, ...add];
}

const createRequest =
  (body: string | Buffer, options: Options = {}) =>
  (context: Context): RawRequest => ({
    method: 'POST',
    path: DEPARTMENTS,
    headers: withHeaders(
      [
        ['Authorization', context.bearer],
        ['Idempotency-Key', randomUUID()],
        ['Content-Type', 'application/json'],
      ],
      options,
    ),
    body,
  });

const patchRequest =
  (body: string | Buffer, options: Options = {}) =>
  (context: Context): RawRequest => ({
    method: 'PATCH',
    path: suitePath(context.suiteId),
    headers: withHeaders(
      [
        ['Authorization', context.bearer],
        ['Content-Type', 'application/json'],
      ],
      options,
    ),
    body,
  });

const BOUNDARY = 'hostile-boundary';

/** A multipart upload form: its text fields, then the file part (when given). */
const uploadRequest =
  (fields: Array<[string, string]>, file?: (context: Context) => Buffer) =>
  (context: Context): RawRequest => {
    const parts: Buffer[] = fields.map(([name, value]) => Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    if (file) {
      parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="p.zip"\r\nContent-Type: application/zip\r\n\r\n`));
      parts.push(file(context), Buffer.from('\r\n'));
    }
    parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
    return {
      method: 'POST',
      path: UPLOADS,
      headers: [
        ['Authorization', context.bearer],
        ['Content-Type', `multipart/form-data; boundary=${BOUNDARY}`],
      ],
      body: Buffer.concat(parts),
    };
  };
const uploadPackage = (name: string) => uploadRequest([['kind', 'package']], (context) => context.packages[name]);

const create = (body: unknown, options?: Options) => createRequest(JSON.stringify(body), options);
const patch = (body: unknown, options?: Options) => patchRequest(JSON.stringify(body), options);
const field = (name: string, reason: string) => ({ field: name, reason });
const invalid = (name: string, reason: string, request: HostileCase['request']): HostileCase => ({ request, status: 400, code: 'VALIDATION_FAILED', details: field(name, reason) });
const invalidJson = (request: HostileCase['request']): HostileCase => ({ request, status: 400, code: 'INVALID_JSON' });
const unsupported = (request: HostileCase['request']): HostileCase => ({ request, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
const unauthenticated = (request: HostileCase['request']): HostileCase => ({ request, status: 401, code: 'UNAUTHENTICATED' });
const tooLarge = (request: HostileCase['request']): HostileCase => ({ request, status: 413, code: 'PAYLOAD_TOO_LARGE' });
const notFound = (request: HostileCase['request']): HostileCase => ({ request, status: 404, code: 'NOT_FOUND' });

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));
const connectorRef = (overrides: Record<string, unknown> = {}) => ({ connector_id: 'github', connector_origin: 'official', required: true, ...overrides });

// --- the corpus ---------------------------------------------------------------------------------

/** Text no field may hold: NUL (PostgreSQL cannot store it) and unpaired surrogates (not Unicode). */
const UNSTORABLE_TEXT: Array<[string, string]> = [
  ['a NUL', 'a\u0000b'],
  ['only a NUL', '\u0000'],
  ['a lone high surrogate', 'x\ud800'],
  ['a lone low surrogate', '\udc00x'],
  ['a reversed surrogate pair', '\udc00\ud800'],
];

/** Names that show nothing: zero-width, bidi controls, BOM, with or without white space. */
const INVISIBLE_TEXT: Array<[string, string]> = [
  ['a zero-width space', '\u200b'],
  ['a right-to-left mark', '\u200f'],
  ['a right-to-left override', '\u202e'],
  ['isolates', '\u2066\u2069'],
  ['a word joiner', '\u2060'],
  ['a byte order mark', '\ufeff'],
  ['invisible characters and white space', ' \u200b\t\u200e\u00a0 '],
];

const departmentCases: Record<string, HostileCase> = {};
for (const [label, text] of UNSTORABLE_TEXT) {
  departmentCases[`create: name with ${label}`] = invalid('name', 'invalid_value', create({ name: text }));
  departmentCases[`create: external_id with ${label}`] = invalid('external_id', 'invalid_value', create({ name: 'n', external_id: text }));
  departmentCases[`create: parent_id with ${label}`] = invalid('parent_id', 'invalid_value', create({ name: 'n', parent_id: text }));
}
for (const [label, text] of INVISIBLE_TEXT) {
  departmentCases[`create: name of ${label}`] = invalid('name', 'must_not_be_blank', create({ name: text }));
}
departmentCases['create: external_id of a zero-width space'] = invalid('external_id', 'must_not_be_blank', create({ name: 'n', external_id: '\u200b' }));
departmentCases['create: external_id of bidi controls'] = invalid('external_id', 'must_not_be_blank', create({ name: 'n', external_id: '\u202a\u202c' }));

Object.assign(departmentCases, {
  'create: name that is a number': invalid('name', 'invalid_type', create({ name: 5 })),
  'create: name that is a boolean': invalid('name', 'invalid_type', create({ name: true })),
  'create: name that is an array': invalid('name', 'invalid_type', create({ name: ['a'] })),
  'create: name that is an object': invalid('name', 'invalid_type', create({ name: { a: 1 } })),
  'create: name null': invalid('name', 'required', create({ name: null })),
  'create: name missing': invalid('name', 'required', create({})),
  'create: name of 256 code points': invalid('name', 'too_long', create({ name: '😀'.repeat(256) })),
  'create: external_id that is a number': invalid('external_id', 'invalid_type', create({ name: 'n', external_id: 5 })),
  'create: external_id that is an object': invalid('external_id', 'invalid_type', create({ name: 'n', external_id: {} })),
  'create: external_id that is an array': invalid('external_id', 'invalid_type', create({ name: 'n', external_id: [] })),
  'create: external_id of 513 code points': invalid('external_id', 'too_long', create({ name: 'n', external_id: 'é'.repeat(513) })),
  'create: parent_id that is a number': invalid('parent_id', 'invalid_type', create({ name: 'n', parent_id: 7 })),
  'create: parent_id that is a boolean': invalid('parent_id', 'invalid_type', create({ name: 'n', parent_id: false })),
  'create: parent_id that is an object': invalid('parent_id', 'invalid_type', create({ name: 'n', parent_id: {} })),
  'create: parent_id not a uuid': invalid('parent_id', 'invalid_format', create({ name: 'n', parent_id: 'not-a-uuid' })),
  'create: parent_id without dashes': invalid('parent_id', 'invalid_format', create({ name: 'n', parent_id: 'a0eebc999c0b4ef8bb6d6bb9bd380a11' })),
  'create: parent_id in braces': invalid('parent_id', 'invalid_format', create({ name: 'n', parent_id: '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}' })),
  'create: parent_id with a non-hex digit': invalid('parent_id', 'invalid_format', create({ name: 'n', parent_id: 'g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' })),
  'create: parent_id one character short': invalid('parent_id', 'invalid_format', create({ name: 'n', parent_id: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1' })),
  'create: parent_id with a trailing newline': invalid('parent_id', 'invalid_format', create({ name: 'n', parent_id: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\n' })),
  'create: unknown field order': invalid('order', 'unknown_field', create({ name: 'n', order: 1 })),
  'create: unknown field Name (case differs)': invalid('Name', 'unknown_field', create({ name: 'n', Name: 'x' })),
  'create: unknown field holding a NUL': invalid('x', 'invalid_value', create({ name: 'n', x: '\u0000' })),
  'create: a key holding a NUL': invalid('na\u0000me', 'invalid_value', create({ name: 'n', 'na\u0000me': 'x' })),
  'create: top-level array': invalid('body', 'invalid_type', create([{ name: 'n' }])),
  'create: empty body': invalid('name', 'required', createRequest('')),
});

for (const key of ['constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf', 'isPrototypeOf', '__defineGetter__']) {
  departmentCases[`create: key ${key}`] = invalid(key, 'unknown_field', createRequest(`{"name":"n","${key}":{"polluted":true}}`));
}
departmentCases['create: key __proto__ with an object'] = invalid('__proto__', 'unknown_field', createRequest('{"name":"n","__proto__":{"polluted":true}}'));
departmentCases['create: key __proto__ with a string'] = invalid('__proto__', 'unknown_field', createRequest('{"name":"n","__proto__":"x"}'));
departmentCases['create: key __proto__ with null'] = invalid('__proto__', 'unknown_field', createRequest('{"__proto__":null,"name":"n"}'));

const PATCH_TEXT_FIELDS: Array<[string, (text: string) => unknown]> = [
  ['display_name', (text) => ({ display_name: text })],
  ['display_name_cn', (text) => ({ display_name_cn: text })],
  ['description', (text) => ({ description: text })],
  ['description_cn', (text) => ({ description_cn: text })],
  ['version', (text) => ({ version: text })],
  ['status', (text) => ({ status: text })],
  ['icon_url', (text) => ({ icon_url: `https://example.com/${text}` })],
  ['icon_upload_id', (text) => ({ icon_upload_id: text })],
  ['upload_id', (text) => ({ upload_id: text })],
  ['category_id', (text) => ({ category_id: text })],
  ['clients[1]', (text) => ({ clients: ['web', text] })],
  ['connector_refs[0].connector_id', (text) => ({ connector_refs: [connectorRef({ connector_id: text })] })],
  ['connector_refs[0].connector_origin', (text) => ({ connector_refs: [connectorRef({ connector_origin: text })] })],
];

const patchCases: Record<string, HostileCase> = {};
for (const [name, body] of PATCH_TEXT_FIELDS) {
  for (const [label, text] of UNSTORABLE_TEXT.filter(([label]) => label !== 'a reversed surrogate pair')) {
    patchCases[`patch: ${name} with ${label}`] = invalid(name, 'invalid_value', patch(body(text)));
  }
}
for (const name of ['display_name', 'version', 'connector_refs[0].connector_id', 'connector_refs[0].connector_origin']) {
  const body = PATCH_TEXT_FIELDS.find(([field]) => field === name)![1];
  for (const [label, text] of INVISIBLE_TEXT.slice(0, 3)) patchCases[`patch: ${name} of ${label}`] = invalid(name, 'must_not_be_blank', patch(body(text)));
}

Object.assign(patchCases, {
  // Integers JSON numbers cannot hold exactly (row 10): written as text, since JSON.parse rounds them.
  'patch: skill_count 2^53 + 1': invalid('skill_count', 'invalid_value', patchRequest('{"skill_count": 9007199254740993}')),
  'patch: command_count 2^53': invalid('command_count', 'invalid_value', patchRequest('{"command_count": 9007199254740992}')),
  'patch: command_count 2^63 - 1': invalid('command_count', 'invalid_value', patchRequest('{"command_count": 9223372036854775807}')),
  'patch: expected_revision 2^63': invalid('expected_revision', 'invalid_value', patchRequest('{"expected_revision": 9223372036854775808}')),
  'patch: expected_revision 2^64': invalid('expected_revision', 'invalid_value', patchRequest('{"expected_revision": 18446744073709551616}')),
  'patch: expected_market_item_revision -(2^53 + 1)': invalid('expected_market_item_revision', 'invalid_value', patchRequest('{"expected_market_item_revision": -9007199254740993}')),
  'patch: command_count 1e400 (Infinity)': invalid('command_count', 'invalid_type', patchRequest('{"command_count": 1e400}')),
  'patch: command_count 1.5': invalid('command_count', 'invalid_type', patch({ command_count: 1.5 })),
  'patch: command_count as a string': invalid('command_count', 'invalid_type', patch({ command_count: '1' })),
  'patch: command_count null': invalid('command_count', 'invalid_type', patch({ command_count: null })),
  'patch: skill_count -1': invalid('skill_count', 'invalid_value', patch({ skill_count: -1 })),
  'patch: expected_revision 0': invalid('expected_revision', 'invalid_value', patch({ expected_revision: 0 })),
  'patch: expected_revision -0': invalid('expected_revision', 'invalid_value', patchRequest('{"expected_revision": -0}')),
  // Wrong types and limits.
  'patch: display_name that is a number': invalid('display_name', 'invalid_type', patch({ display_name: 5 })),
  'patch: display_name null': invalid('display_name', 'invalid_type', patch({ display_name: null })),
  'patch: description that is an object': invalid('description', 'invalid_type', patch({ description: {} })),
  'patch: version that is a boolean': invalid('version', 'invalid_type', patch({ version: true })),
  'patch: status unknown': invalid('status', 'invalid_value', patch({ status: 'archived' })),
  'patch: status that is a number': invalid('status', 'invalid_type', patch({ status: 1 })),
  'patch: clients that is a string': invalid('clients', 'invalid_type', patch({ clients: 'web' })),
  'patch: clients with a number': invalid('clients', 'invalid_type', patch({ clients: [1] })),
  'patch: clients in upper case': invalid('clients', 'invalid_format', patch({ clients: ['Web'] })),
  'patch: 33 clients': invalid('clients', 'too_long', patch({ clients: Array.from({ length: 33 }, (_, i) => `c${i}`) })),
  'patch: connector_refs that is an object': invalid('connector_refs', 'invalid_type', patch({ connector_refs: {} })),
  'patch: connector_refs without required': invalid('connector_refs[0].required', 'required', patch({ connector_refs: [{ connector_id: 'a', connector_origin: 'o' }] })),
  'patch: connector_refs with required as a string': invalid('connector_refs[0].required', 'invalid_type', patch({ connector_refs: [connectorRef({ required: 'yes' })] })),
  'patch: 201 connector_refs': invalid('connector_refs', 'too_long', patch({ connector_refs: Array.from({ length: 201 }, (_, i) => connectorRef({ connector_id: `c${i}` })) })),
  'patch: clear_category as a string': invalid('clear_category', 'invalid_type', patch({ clear_category: 'true' })),
  'patch: icon_url javascript:': invalid('icon_url', 'invalid_format', patch({ icon_url: 'javascript:alert(1)' })),
  'patch: icon_url ftp:': invalid('icon_url', 'invalid_format', patch({ icon_url: 'ftp://example.com/x.png' })),
  'patch: icon_url of 2049 characters': invalid('icon_url', 'too_long', patch({ icon_url: `https://example.com/${'a'.repeat(2029)}` })),
  'patch: icon_upload_id not a uuid': invalid('icon_upload_id', 'invalid_format', patch({ icon_upload_id: 'x' })),
  'patch: category_id that is a number': invalid('category_id', 'invalid_type', patch({ category_id: 123 })),
  'patch: display_name of 256 code points': invalid('display_name', 'too_long', patch({ display_name: '😀'.repeat(256) })),
  'patch: version of 65 characters': invalid('version', 'too_long', patch({ version: 'v'.repeat(65) })),
  'patch: description of 4001 characters': invalid('description', 'too_long', patch({ description: 'd'.repeat(4001) })),
  'patch: icon_url and icon_upload_id together': invalid('icon_upload_id', 'conflicting_fields', patch({ icon_url: 'https://example.com/a.png', icon_upload_id: randomUUID() })),
  // Reserved keys, nested too.
  'patch: key constructor': invalid('constructor', 'unknown_field', patchRequest('{"constructor":{"prototype":{"polluted":true}}}')),
  'patch: key __proto__ inside connector_refs': invalid('connector_refs[0].__proto__', 'unknown_field', patchRequest('{"connector_refs":[{"connector_id":"a","connector_origin":"o","required":true,"__proto__":{"polluted":true}}]}')),
  'patch: key toString inside connector_refs': invalid('connector_refs[0].toString', 'unknown_field', patchRequest('{"connector_refs":[{"connector_id":"a","connector_origin":"o","required":true,"toString":"x"}]}')),
  'patch: unknown field': invalid('revision', 'unknown_field', patch({ revision: 5 })),
  'patch: resourceId not a uuid': invalid('resourceId', 'invalid_format', (context) => ({ ...patch({ display_name: 'x' })(context), path: suitePath('not-a-uuid') })),
  'patch: resourceId with a NUL': invalid('resourceId', 'invalid_format', (context) => ({ ...patch({ display_name: 'x' })(context), path: suitePath(`${context.suiteId}%00`) })),
  'patch: resourceId with a trailing character': invalid('resourceId', 'invalid_format', (context) => ({ ...patch({ display_name: 'x' })(context), path: suitePath(`${context.suiteId}a`) })),
});

const parserCases: Record<string, HostileCase> = {
  // Bytes that are not UTF-8 (row 8): refused, never turned into U+FFFD.
  'body: Latin-1 é (caf\\xe9)': invalidJson(createRequest(bytes('{"name":"caf', [0xe9], '"}'))),
  'body: an encoded surrogate (CESU-8 ED A0 80)': invalidJson(createRequest(bytes('{"name":"x', [0xed, 0xa0, 0x80], '"}'))),
  'body: an overlong encoding (C0 AF)': invalidJson(createRequest(bytes('{"name":"x', [0xc0, 0xaf], '"}'))),
  'body: a 0xFF byte': invalidJson(createRequest(bytes('{"name":"x', [0xff], '"}'))),
  'body: a truncated four-byte sequence': invalidJson(createRequest(bytes('{"name":"x', [0xf0, 0x9f, 0x98], '"}'))),
  'body: invalid UTF-8 in a key': invalidJson(createRequest(bytes('{"na', [0xe9], 'me":"x"}'))),
  'body: invalid UTF-8 in a PATCH': invalidJson(patchRequest(bytes('{"display_name":"caf', [0xe9], '"}'))),
  // Not JSON.
  'body: truncated JSON': invalidJson(createRequest('{"name":')),
  'body: trailing garbage': invalidJson(createRequest('{"name":"a"}x')),
  'body: two objects': invalidJson(createRequest('{"name":"a"}{"name":"b"}')),
  'body: single quotes': invalidJson(createRequest("{'name':'a'}")),
  'body: a comment': invalidJson(createRequest('{"name":"a"/* c */}')),
  'body: NaN': invalidJson(patchRequest('{"command_count":NaN}')),
  'body: a trailing comma': invalidJson(createRequest('{"name":"a",}')),
  'body: a raw NUL byte in a string': invalidJson(createRequest(bytes('{"name":"a', [0x00], '"}'))),
  'body: a raw control character in a string': invalidJson(createRequest(bytes('{"name":"a', [0x01], '"}'))),
  'body: a bad escape': invalidJson(createRequest('{"name":"\\x41"}')),
  'body: a short unicode escape': invalidJson(createRequest('{"name":"\\u12"}')),
  'body: a top-level string': invalidJson(createRequest('"name"')),
  'body: a top-level number': invalidJson(createRequest('42')),
  'body: null': invalidJson(createRequest('null')),
  'body: white space only': invalidJson(createRequest('  \n ')),
  'body: a byte order mark and nothing': invalid('name', 'required', createRequest(bytes([0xef, 0xbb, 0xbf]))),
  // Depth (row 2): refused while parsing, before anything walks the value.
  'depth: 2,000 levels inside a field (4 KB)': invalidJson(createRequest(`{"name":"d","x":${nested(2000)}}`)),
  'depth: 65 levels in all': invalidJson(createRequest(`{"name":"d","x":${nested(64)}}`)),
  'depth: 64 levels in all pass the parser (then x is unknown)': invalid('x', 'unknown_field', createRequest(`{"name":"d","x":${nested(63)}}`)),
  'depth: 100,000 nested objects': invalidJson(createRequest(`${'{"a":'.repeat(100000)}1${'}'.repeat(100000)}`)),
  'depth: deep inside connector_refs': invalidJson(patchRequest(`{"connector_refs":[{"connector_id":${nested(100)}}]}`)),
  // Size.
  'size: 1 MiB + 1 byte': tooLarge(createRequest(`{"name":"${'a'.repeat(JSON_LIMIT - 10)}"}`)),
  'size: exactly 1 MiB is read (then the name is too long)': invalid('name', 'too_long', createRequest(`{"name":"${'a'.repeat(JSON_LIMIT - 11)}"}`)),
  'size: 5 MiB': tooLarge(createRequest(Buffer.alloc(5 * JSON_LIMIT, 0x20))),
  'size: a gzip bomb (4 MiB inflated)': tooLarge(createRequest(gzipSync(Buffer.alloc(4 * JSON_LIMIT, 0x20)), { set: { 'Content-Encoding': 'gzip' } })),
  // Content-Encoding (row 3).
  'encoding: gzip that is not gzip': invalidJson(createRequest('{"name":"a"}', { set: { 'Content-Encoding': 'gzip' } })),
  'encoding: br that is not brotli': invalidJson(createRequest('{"name":"a"}', { set: { 'Content-Encoding': 'br' } })),
  'encoding: deflate that is not deflate': invalidJson(createRequest('{"name":"a"}', { set: { 'Content-Encoding': 'deflate' } })),
  'encoding: truncated gzip': invalidJson(createRequest(gzipSync('{"name":"truncated gzip"}').subarray(0, 20), { set: { 'Content-Encoding': 'gzip' } })),
  'encoding: gzip of invalid UTF-8': invalidJson(createRequest(gzipSync(bytes('{"name":"caf', [0xe9], '"}')), { set: { 'Content-Encoding': 'gzip' } })),
  'encoding: brotli of deep JSON': invalidJson(createRequest(brotliCompressSync(`{"name":"d","x":${nested(5000)}}`), { set: { 'Content-Encoding': 'br' } })),
  'encoding: deflate of a NUL in a name': invalid('name', 'invalid_value', createRequest(deflateSync('{"name":"a\\u0000"}'), { set: { 'Content-Encoding': 'deflate' } })),
  'encoding: compress': unsupported(createRequest('{"name":"a"}', { set: { 'Content-Encoding': 'compress' } })),
  'encoding: zstd': unsupported(createRequest('{"name":"a"}', { set: { 'Content-Encoding': 'zstd' } })),
  'encoding: gzip, br': unsupported(createRequest('{"name":"a"}', { set: { 'Content-Encoding': 'gzip, br' } })),
  'encoding: x-unknown': unsupported(createRequest('{"name":"a"}', { set: { 'Content-Encoding': 'x-unknown' } })),
  // Charsets (row 7): only UTF-8.
  'charset: utf-16': unsupported(createRequest('{"name":"a"}', { set: { 'Content-Type': 'application/json; charset=utf-16' } })),
  'charset: UTF-16LE with a UTF-16 body': unsupported(createRequest(Buffer.from('{"name":"a"}', 'utf16le'), { set: { 'Content-Type': 'application/json; charset=UTF-16LE' } })),
  'charset: utf-32': unsupported(createRequest('{"name":"a"}', { set: { 'Content-Type': 'application/json; charset=utf-32' } })),
  'charset: iso-8859-1': unsupported(createRequest('{"name":"a"}', { set: { 'Content-Type': 'application/json; charset=iso-8859-1' } })),
  'charset: us-ascii': unsupported(createRequest('{"name":"a"}', { set: { 'Content-Type': 'application/json;charset="us-ascii"' } })),
  'charset: utf8 (not the registered name)': unsupported(createRequest('{"name":"a"}', { set: { 'Content-Type': 'application/json; charset=utf8' } })),
  // Content types.
  'content type: text/plain': unsupported(createRequest('{"name":"a"}', { set: { 'Content-Type': 'text/plain' } })),
  'content type: none': unsupported(createRequest('{"name":"a"}', { set: { 'Content-Type': null } })),
  'content type: form-urlencoded': unsupported(createRequest('name=a', { set: { 'Content-Type': 'application/x-www-form-urlencoded' } })),
  'content type: multipart': unsupported(createRequest('--x\r\n\r\n--x--', { set: { 'Content-Type': 'multipart/form-data; boundary=x' } })),
  'content type: application/json-patch+json': unsupported(createRequest('[]', { set: { 'Content-Type': 'application/json-patch+json' } })),
  'content type: application/jsonx': unsupported(createRequest('{"name":"a"}', { set: { 'Content-Type': 'application/jsonx' } })),
  'charset: empty': unsupported(createRequest('{"name":"a"}', { set: { 'Content-Type': 'application/json; charset=' } })),
  'content type: application/xml': unsupported(createRequest('<name>a</name>', { set: { 'Content-Type': 'application/xml' } })),
  'content type: two headers, text/plain first': unsupported(createRequest('{"name":"a"}', { set: { 'Content-Type': 'text/plain' }, add: [['Content-Type', 'application/json']] })),
  'content type: JSON to the multipart upload route': unsupported((context) => ({ ...createRequest('{"kind":"icon"}')(context), path: '/api/openapi/v1/uploads' })),
};

const headerCases: Record<string, HostileCase> = {
  // Row 12: ambiguous credentials.
  'auth: two Authorization headers with keys of two organizations': unauthenticated((context) => createRequest('{"name":"a"}', { add: [['Authorization', context.otherBearer]] })(context)),
  'auth: the same key twice': unauthenticated((context) => createRequest('{"name":"a"}', { add: [['Authorization', context.bearer]] })(context)),
  'auth: authorization and AUTHORIZATION': unauthenticated((context) => createRequest('{"name":"a"}', { set: { Authorization: null }, add: [['authorization', context.bearer], ['AUTHORIZATION', context.otherBearer]] })(context)),
  'auth: a second, empty Authorization header': unauthenticated(createRequest('{"name":"a"}', { add: [['Authorization', '']] })),
  'auth: two duplicate headers on PATCH': unauthenticated((context) => patchRequest('{"display_name":"a"}', { add: [['Authorization', context.otherBearer]] })(context)),
  'auth: no Authorization': unauthenticated(createRequest('{"name":"a"}', { set: { Authorization: null } })),
  'auth: Basic scheme': unauthenticated(createRequest('{"name":"a"}', { set: { Authorization: 'Basic dXNlcjpwYXNz' } })),
  'auth: Bearer without a key': unauthenticated(createRequest('{"name":"a"}', { set: { Authorization: 'Bearer ' } })),
  'auth: two keys in one header': unauthenticated((context) => createRequest('{"name":"a"}', { set: { Authorization: `${context.bearer}, ${context.otherBearer}` } })(context)),
  'auth: an unknown key': unauthenticated(createRequest('{"name":"a"}', { set: { Authorization: `Bearer wsk_${'A'.repeat(40)}` } })),
  'auth: an 8 KB key': unauthenticated(createRequest('{"name":"a"}', { set: { Authorization: `Bearer wsk_${'A'.repeat(8192)}` } })),
  'auth: a key with Latin-1 bytes': unauthenticated(createRequest('{"name":"a"}', { set: { Authorization: 'Bearer wsk_\u00e9\u00e9' } })),
  // Idempotency-Key.
  'idempotency: key missing': { request: createRequest('{"name":"a"}', { set: { 'Idempotency-Key': null } }), status: 400, code: 'IDEMPOTENCY_KEY_MISSING' },
  'idempotency: key of 256 characters': invalid('Idempotency-Key', 'invalid_format', createRequest('{"name":"a"}', { set: { 'Idempotency-Key': 'k'.repeat(256) } })),
  'idempotency: key with Latin-1 bytes': invalid('Idempotency-Key', 'invalid_format', createRequest('{"name":"a"}', { set: { 'Idempotency-Key': 'cl\u00e9' } })),
  // Other headers do not change the error body.
  'headers: Accept text/html still gets the JSON error body': invalid('name', 'required', createRequest('{}', { set: { Accept: 'text/html' } })),
  'headers: an X-Request-Id over 128 characters is replaced': invalid('name', 'required', createRequest('{}', { set: { 'X-Request-Id': 'r'.repeat(129) } })),
};

const methodCases: Record<string, HostileCase> = {
  'method: PUT departments': notFound((context) => ({ ...create({ name: 'a' })(context), method: 'PUT' })),
  'method: DELETE departments': notFound((context) => ({ ...create({ name: 'a' })(context), method: 'DELETE' })),
  'method: PATCH departments': notFound((context) => ({ ...create({ name: 'a' })(context), method: 'PATCH' })),
  'method: POST an expert suite': notFound((context) => ({ ...patch({ display_name: 'a' })(context), method: 'POST' })),
  'method: PUT an expert suite': notFound((context) => ({ ...patch({ display_name: 'a' })(context), method: 'PUT' })),
  'method: DELETE an expert suite': notFound((context) => ({ ...patch({})(context), method: 'DELETE', body: undefined })),
  'method: PROPFIND': notFound((context) => ({ ...create({ name: 'a' })(context), method: 'PROPFIND' })),
  'path: departments with a trailing segment': notFound((context) => ({ ...create({ name: 'a' })(context), path: `${DEPARTMENTS}/x` })),
  'path: encoded traversal': notFound((context) => ({ ...create({ name: 'a' })(context), path: `${DEPARTMENTS}/..%2f..%2fadmin` })),
  'path: a very long path': notFound((context) => ({ ...create({ name: 'a' })(context), path: `/${'a'.repeat(8000)}` })),
  // Refused by Node's HTTP parser, answered by the service all the same.
  'method: FOO': { request: (context) => ({ ...create({ name: 'a' })(context), method: 'FOO' }), status: 400, code: 'MALFORMED_REQUEST' },
  'headers: Content-Length and Transfer-Encoding together': { request: createRequest('{"name":"a"}', { add: [['Transfer-Encoding', 'chunked']] }), status: 400, code: 'MALFORMED_REQUEST' },
  'headers: 20 KB of headers': { request: createRequest('{"name":"a"}', { add: [['X-Padding', 'p'.repeat(20 * 1024)]] }), status: 431, code: 'REQUEST_HEADERS_TOO_LARGE' },
};

/** Packages refused at upload (rows 1, 13, 14, 15): built in beforeAll. */
async function buildHostilePackages(): Promise<Record<string, Buffer>> {
  const withExtra = (name: string) => buildZip([...packageEntries(), { name, content: 'x' }]);
  return {
    'wrong CRC': breakCrc(await buildZip(packageEntries()), 'commands/review.md'),
    'control character in a name': renameEntry(await withExtra('ab/evil'), 'ab/evil', 'ab\u0001evil'),
    'control byte in a CP437 name': withCp437Names(renameEntry(await withExtra('ab/evil'), 'ab/evil', 'ab\u001bevil')),
    'NUL byte in README.md': await buildZip(packageEntries({ 'README.md': 'read\u0000me' })),
    'escaped NUL in suite.json': await buildZip(packageEntries({ 'suite.json': '{"name":"a\\u0000","version":"1"}' })),
    'lone surrogate in connectors.json': await buildZip(packageEntries({ 'connectors.json': '[{"connector_id":"\\ud800","connector_origin":"o"}]' })),
    'connectors.json 100 levels deep': await buildZip(packageEntries({ 'connectors.json': `[{"a":${nested(100)}}]` })),
    'a suite name of zero-width characters': await buildZip(packageEntries({ 'suite.json': JSON.stringify({ name: '\u200b\u200c', version: '1' }) })),
    'a connector that is not an object': await buildZip(packageEntries({ 'connectors.json': '["github"]' })),
  };
}

const uploadCases: Record<string, HostileCase> = {
  'upload: a package entry with a wrong CRC': invalid('file', 'invalid_archive', uploadPackage('wrong CRC')),
  'upload: a control character in an entry name': invalid('file', 'unsafe_path', uploadPackage('control character in a name')),
  'upload: a control byte in a CP437 entry name': invalid('file', 'unsafe_path', uploadPackage('control byte in a CP437 name')),
  'upload: a NUL byte in README.md': invalid('file', 'invalid_manifest', uploadPackage('NUL byte in README.md')),
  'upload: an escaped NUL in suite.json': invalid('file', 'invalid_manifest', uploadPackage('escaped NUL in suite.json')),
  'upload: a lone surrogate in connectors.json': invalid('file', 'invalid_manifest', uploadPackage('lone surrogate in connectors.json')),
  'upload: connectors.json nested 100 levels': invalid('file', 'invalid_manifest', uploadPackage('connectors.json 100 levels deep')),
  'upload: a suite name of zero-width characters': invalid('file', 'invalid_manifest', uploadPackage('a suite name of zero-width characters')),
  'upload: a connector that is not an object': invalid('file', 'invalid_manifest', uploadPackage('a connector that is not an object')),
  'upload: kind with a NUL': invalid('kind', 'invalid_value', uploadRequest([['kind', 'pack\u0000age']], (context) => context.packages['wrong CRC'])),
  'upload: a form field constructor': invalid('constructor', 'unknown_field', uploadRequest([['kind', 'icon'], ['constructor', 'x']], (context) => context.packages['wrong CRC'])),
  'upload: no file': invalid('file', 'required', uploadRequest([['kind', 'package']])),
  'upload: two Authorization headers': unauthenticated((context) => {
    const request = uploadPackage('wrong CRC')(context);
    return { ...request, headers: [...request.headers!, ['Authorization', context.otherBearer]] };
  }),
};

const CASES: Record<string, HostileCase> = { ...departmentCases, ...patchCases, ...parserCases, ...headerCases, ...methodCases, ...uploadCases };

// --- the run ------------------------------------------------------------------------------------

describe('hostile input: every case a 4xx with the error body, nothing leaked, nothing written', () => {
  const fixture = useTestApp({ overrides: { JSON_BODY_LIMIT_BYTES: JSON_LIMIT }, listen: true });
  let other: TestTenant;
  let context: Context;

  beforeAll(async () => {
    other = await createTenant(fixture.database);
    const suite = await fixture.newSuite();
    context = { bearer: fixture.tenant.bearer, otherBearer: other.bearer, suiteId: suite.id, packages: await buildHostilePackages() };
  });

  /** Everything a refused request could have written. */
  const writes = async () => {
    const organizationId = { in: [fixture.tenant.organizationId, other.organizationId] };
    const [departments, suites, marketItems, idempotencyRecords, uploads] = await Promise.all([
      fixture.database.prisma.department.count({ where: { organizationId } }),
      fixture.database.prisma.expertSuite.findMany({ where: { organizationId }, select: { id: true, revision: true, updatedAt: true } }),
      fixture.database.prisma.marketItem.count({ where: { organizationId } }),
      fixture.database.prisma.idempotencyRecord.count({ where: { apiKeyId: { in: [fixture.tenant.apiKeyId, other.apiKeyId] } } }),
      fixture.database.prisma.upload.count({ where: { organizationId } }),
    ]);
    return { departments, suites, marketItems, idempotencyRecords, uploads };
  };

  it(`has at least 100 cases beyond the issue's rows (${Object.keys(CASES).length} in all)`, () => {
    expect(Object.keys(CASES).length).toBeGreaterThanOrEqual(150);
  });

  it.each(Object.entries(CASES))('%s', async (_name, hostile) => {
    const before = await writes();
    const response = await rawRequest(fixture.baseUrl, hostile.request(context));

    expectErrorBody(response, hostile.status, hostile.code, ERROR_TYPES[hostile.status]);
    if (hostile.details) expect(response.body.details).toMatchObject(hostile.details);
    for (const leak of LEAKS) expect(response.text).not.toMatch(leak);
    expect(await writes()).toEqual(before);
  });

  it('replaces an unacceptable X-Request-Id with a generated one', async () => {
    const response = await rawRequest(fixture.baseUrl, createRequest('{}', { set: { 'X-Request-Id': 'r'.repeat(129) } })(context));
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('leaves Object.prototype untouched after every __proto__ and constructor body above', () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('polluted');
  });

  it('states in the OpenAPI document a maximum on every integer: 9007199254740991 on every body and response field, less only where the API allows less (page_size)', async () => {
    const document = (await fixture.http().get('/docs-json').expect(200)).body;
    const integers: Array<Record<string, unknown>> = [];
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(collect);
      else if (typeof node === 'object' && node !== null) {
        if ((node as Record<string, unknown>).type === 'integer') integers.push(node as Record<string, unknown>);
        Object.values(node).forEach(collect);
      }
    };
    collect(document.components.schemas);
    expect(integers.length).toBeGreaterThanOrEqual(10);
    for (const integer of integers) expect(integer.maximum).toBe(9007199254740991);
    const parameters: Array<Record<string, unknown>> = [];
    for (const operations of Object.values(document.paths as Record<string, Record<string, { parameters?: Array<{ schema?: Record<string, unknown> }> }>>)) {
      for (const operation of Object.values(operations)) for (const parameter of operation.parameters ?? []) if (parameter.schema?.type === 'integer') parameters.push(parameter.schema);
    }
    expect(parameters.length).toBeGreaterThan(0);
    for (const integer of parameters) expect(integer.maximum).toEqual(expect.any(Number));
    for (const integer of parameters) expect(integer.maximum as number).toBeLessThanOrEqual(9007199254740991);
  });

  describe('what is accepted at the edges', () => {
    it('takes a body in UTF-8 with charset=UTF-8 (any case, quoted), gzip, deflate or br', async () => {
      const sent = [
        createRequest(JSON.stringify({ name: `utf8-${randomUUID()}` }), { set: { 'Content-Type': 'application/json; charset="UTF-8"' } }),
        createRequest(gzipSync(JSON.stringify({ name: `gzip-${randomUUID()}` })), { set: { 'Content-Encoding': 'gzip' } }),
        createRequest(deflateSync(JSON.stringify({ name: `deflate-${randomUUID()}` })), { set: { 'Content-Encoding': 'DEFLATE' } }),
        createRequest(brotliCompressSync(JSON.stringify({ name: `br-${randomUUID()}` })), { set: { 'Content-Encoding': 'br' } }),
      ];
      for (const request of sent) expect((await rawRequest(fixture.baseUrl, request(context))).status).toBe(201);
    });

    it('keeps text exactly as sent: astral characters (valid surrogate pairs) and a name with invisible characters around visible ones', async () => {
      const name = `😀\u200bA\u200f-${randomUUID().slice(0, 8)}`;
      const response = await rawRequest(fixture.baseUrl, create({ name })(context));
      expect(response.status).toBe(201);
      expect(response.body.name).toBe(name);
    });

    it('takes the largest integer JSON holds exactly', async () => {
      const suite = await fixture.newSuite();
      const response = await rawRequest(fixture.baseUrl, { ...patchRequest('{"command_count": 9007199254740991}')(context), path: suitePath(suite.id) });
      expect(response.status).toBe(200);
      expect(response.body.command_count).toBe(9007199254740991);
    });

    it('takes an upper-case uuid in the path and answers with it lower-case', async () => {
      const response = await rawRequest(fixture.baseUrl, { ...patch({})(context), path: suitePath(context.suiteId.toUpperCase()) });
      expect(response.status).toBe(200);
      expect(response.body.id).toBe(context.suiteId);
    });
  });
});
