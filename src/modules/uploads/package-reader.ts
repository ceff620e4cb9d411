import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import * as yauzl from 'yauzl';
import { AppError } from '../../common/errors/app-error';
import { findInJson } from '../../common/json/find-in-json';
import { exceedsNestingDepth, MAX_JSON_NESTING } from '../../common/json/nesting-depth';
import { codePointLength, isBlank } from '../../common/validation/field-rules';
import { isStorableText } from '../../common/validation/storable-text';
import type { PackageConnectorRef, PackageContents, PackageDocument } from './package-contents';

/** Limits a package must keep; see docs/uploads.md. */
const PACKAGE_LIMITS = {
  maxEntries: 1000,
  /** Sum of the actual decompressed bytes of every entry. */
  maxUncompressedBytes: 64 * 1024 * 1024,
  /** Largest file the service reads into the suite (suite.json, connectors.json, Markdown). */
  maxTextFileBytes: 1024 * 1024,
  /** All those files together: they are copied into the suite's record. */
  maxTextBytes: 8 * 1024 * 1024,
  /** Uncompressed : compressed, checked on entries above `ratioCheckFromBytes`. */
  maxCompressionRatio: 100,
  ratioCheckFromBytes: 64 * 1024,
} as const;

export type PackageRejection = 'invalid_archive' | 'unsafe_path' | 'too_many_entries' | 'too_large' | 'invalid_manifest';

const reject = (reason: PackageRejection, detail: string) => AppError.validation('file', reason, `file: ${detail}`);

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const COMMAND_PATH = /^commands\/([^/]+)\.md$/;
const SKILL_PATH = /^skills\/([^/]+)\/(.+)$/;
const TEXT_FILES = new Set(['suite.json', 'connectors.json', 'README.md', 'README.zh-CN.md']);
const UTF8_FILE_NAME_FLAG = 0x800;
// C0 controls, DEL and C1 controls.
const CONTROL_CHARACTER = /\p{Cc}/u;

/** A zip read a range at a time (from the database) rather than held whole. */
export interface ArchiveSource {
  reader: yauzl.RandomAccessReader;
  size: number;
}

/**
 * Reads a resource package (a zip), from memory or a range at a time, refusing what is unsafe or
 * malformed before anything is kept: unreadable archives, entries whose data does not match their CRC-32, unsafe
 * paths (absolute, `..`, backslashes, control characters), symlinks, too many entries, too much data
 * (counted while decompressing, not taken from the headers), suspicious compression ratios, and
 * manifests that do not follow the layout or hold text that cannot be stored (NUL, unpaired surrogates).
 */
export async function readPackage(archive: Buffer | ArchiveSource): Promise<PackageContents> {
  let zip: yauzl.ZipFile;
  try {
    // decodeStrings off: file names are checked here, so that an unsafe one is named as such.
    const options = { decodeStrings: false, validateEntrySizes: true, strictFileNames: true };
    zip = Buffer.isBuffer(archive)
      ? await yauzl.fromBufferPromise(archive, options)
      : await yauzl.fromRandomAccessReaderPromise(archive.reader, archive.size, options);
  } catch {
    throw reject('invalid_archive', 'is not a readable zip archive.');
  }
  try {
    if (zip.entryCount > PACKAGE_LIMITS.maxEntries) {
      throw reject('too_many_entries', `has ${zip.entryCount} entries; a package may have at most ${PACKAGE_LIMITS.maxEntries}.`);
    }
    const { files, names } = await readEntries(zip);
    requireSkillFiles(names);
    return toContents(files);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw reject('invalid_archive', 'is not a readable zip archive.');
  } finally {
    zip.close();
  }
}

/**
 * The text files the layout names, by path, and the names of all entries; every other entry is
 * read only to count its bytes.
 */
async function readEntries(zip: yauzl.ZipFile): Promise<{ files: Map<string, string>; names: Set<string> }> {
  const files = new Map<string, string>();
  const seen = new Set<string>();
  let totalBytes = 0;
  let textBytes = 0;
  for await (const entry of zip.eachEntry()) {
    const name = entryName(entry);
    if (seen.has(name)) throw reject('invalid_archive', `holds "${name}" twice.`);
    seen.add(name);
    if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) throw reject('unsafe_path', `"${name}" is a symbolic link.`);
    if (entry.isEncrypted()) throw reject('invalid_archive', `"${name}" is encrypted.`);
    if (!entry.canDecodeFileData()) throw reject('invalid_archive', `"${name}" uses an unsupported compression method.`);
    if (name.endsWith('/')) continue;
    if (entry.uncompressedSize >= PACKAGE_LIMITS.ratioCheckFromBytes && entry.uncompressedSize > PACKAGE_LIMITS.maxCompressionRatio * Math.max(entry.compressedSize, 1)) {
      throw reject('too_large', `"${name}" is compressed more than ${PACKAGE_LIMITS.maxCompressionRatio}:1, which is refused as a zip bomb.`);
    }
    const keep = isLayoutText(name);
    const remaining = PACKAGE_LIMITS.maxUncompressedBytes - totalBytes;
    const textFileLimited = keep && PACKAGE_LIMITS.maxTextFileBytes < remaining;
    const limit = textFileLimited ? PACKAGE_LIMITS.maxTextFileBytes : remaining;
    if (entry.uncompressedSize > limit) throw tooLarge(name, textFileLimited);
    const bytes = await drain(await zip.openReadStreamPromise(entry), limit, keep, () => tooLarge(name, textFileLimited));
    // yauzl does not check CRC-32s; a mismatch means the data is not what was archived.
    if (bytes.crc32 !== entry.crc32) throw reject('invalid_archive', `is corrupt ("${name}" does not match its CRC-32).`);
    totalBytes += bytes.length;
    if (keep) {
      textBytes += bytes.length;
      if (textBytes > PACKAGE_LIMITS.maxTextBytes) {
        throw reject('too_large', `holds more than ${PACKAGE_LIMITS.maxTextBytes} bytes of suite.json, connectors.json and Markdown.`);
      }
      files.set(name, decodeText(name, bytes.data));
    }
  }
  return { files, names: seen };
}

/** Every folder under skills/ is a skill and needs its SKILL.md. */
function requireSkillFiles(names: Set<string>): void {
  for (const name of names) {
    const skill = SKILL_PATH.exec(name);
    if (skill && !names.has(`skills/${skill[1]}/SKILL.md`)) {
      throw reject('invalid_manifest', `skills/${skill[1]}/ has no SKILL.md.`);
    }
  }
}

function tooLarge(name: string, textFileLimited: boolean): AppError {
  return textFileLimited
    ? reject('too_large', `"${name}" is larger than ${PACKAGE_LIMITS.maxTextFileBytes} bytes.`)
    : reject('too_large', `decompresses to more than ${PACKAGE_LIMITS.maxUncompressedBytes} bytes.`);
}

/**
 * The entry's path, refused as unsafe_path when it could mean something else than it shows. Control
 * bytes are looked for in the raw name too: a name not flagged UTF-8 is decoded as CP437, where
 * 0x01-0x1f become printable symbols.
 */
function entryName(entry: yauzl.Entry): string {
  const raw = entry.fileName as unknown as Buffer;
  const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, raw, entry.extraFields, true);
  const unsafe =
    yauzl.validateFileName(name) !== null ||
    raw.some((byte) => byte < 0x20 || byte === 0x7f) ||
    ((entry.generalPurposeBitFlag & UTF8_FILE_NAME_FLAG) !== 0 && !isUtf8(raw)) ||
    CONTROL_CHARACTER.test(name) ||
    name === '' ||
    name.split('/').includes('.');
  if (unsafe) throw reject('unsafe_path', `holds an entry with an unsafe path (${JSON.stringify(name)}).`);
  return name;
}

function isLayoutText(name: string): boolean {
  if (TEXT_FILES.has(name) || COMMAND_PATH.test(name)) return true;
  const skill = SKILL_PATH.exec(name);
  return skill !== null && skill[2] === 'SKILL.md';
}

/** Reads a stream to its end (its length and CRC-32), failing as soon as more than `limit` bytes came out of it. */
function drain(stream: Readable, limit: number, keep: boolean, overLimit: () => AppError): Promise<{ length: number; crc32: number; data: Buffer }> {
  return new Promise((resolve, rejectPromise) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let checksum = 0;
    stream.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > limit) {
        stream.destroy();
        rejectPromise(overLimit());
        return;
      }
      checksum = crc32(chunk, checksum);
      if (keep) chunks.push(chunk);
    });
    stream.on('error', () => rejectPromise(reject('invalid_archive', 'is corrupt (an entry does not decompress to its declared size).')));
    stream.on('end', () => resolve({ length, crc32: checksum, data: Buffer.concat(chunks) }));
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function decodeText(name: string, bytes: Buffer): string {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw reject('invalid_manifest', `"${name}" is not UTF-8 text.`);
  }
  // Strict UTF-8 holds no unpaired surrogate: what is left to refuse is a NUL.
  if (!isStorableText(text)) throw reject('invalid_manifest', `"${name}" holds a NUL character.`);
  return text;
}

function toContents(files: Map<string, string>): PackageContents {
  const manifest = parseSuiteJson(files.get('suite.json'));
  const commands: PackageDocument[] = [];
  const skills: PackageDocument[] = [];
  for (const [name, content] of files) {
    const command = COMMAND_PATH.exec(name);
    if (command) commands.push({ name: command[1], content });
    const skill = SKILL_PATH.exec(name);
    if (skill && skill[2] === 'SKILL.md') skills.push({ name: skill[1], content });
  }
  const { connectors, refs } = parseConnectors(files.get('connectors.json'));
  const byName = (a: PackageDocument, b: PackageDocument) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return {
    ...manifest,
    commands: commands.sort(byName),
    skills: skills.sort(byName),
    connectors,
    connector_refs: refs,
    readme_content: files.get('README.md') ?? '',
    readme_content_cn: files.get('README.zh-CN.md') ?? '',
  };
}

type Manifest = Pick<PackageContents, 'name' | 'version' | 'display_name' | 'description'>;

function parseSuiteJson(text: string | undefined): Manifest {
  if (text === undefined) throw reject('invalid_manifest', 'has no suite.json at the root of the archive.');
  const json = parseJson('suite.json', text);
  if (!isPlainObject(json)) throw reject('invalid_manifest', 'suite.json must hold a JSON object.');
  return {
    name: requireText(json, 'name', 255, 'suite.json'),
    version: requireText(json, 'version', 64, 'suite.json'),
    display_name: optionalText(json, 'display_name', 255),
    description: optionalText(json, 'description', 4000),
  };
}

/**
 * connectors.json is an array of objects of any structure: every object is kept.
 * Those that name a connector (connector_id and connector_origin both strings) are also its
 * connector references, and must be valid ones.
 */
function parseConnectors(text: string | undefined): { connectors: Record<string, unknown>[]; refs: PackageConnectorRef[] } {
  if (text === undefined) return { connectors: [], refs: [] };
  const json = parseJson('connectors.json', text);
  if (!Array.isArray(json)) throw reject('invalid_manifest', 'connectors.json must hold a JSON array.');
  const refs: PackageConnectorRef[] = [];
  const keys = new Set<string>();
  json.forEach((element, index) => {
    const where = `connectors.json[${index}]`;
    if (!isPlainObject(element)) throw reject('invalid_manifest', `${where} must be an object.`);
    if (typeof element.connector_id !== 'string' || typeof element.connector_origin !== 'string') return;
    const ref = {
      connector_id: requireText(element, 'connector_id', 255, where),
      connector_origin: requireText(element, 'connector_origin', 64, where),
      required: element.required === undefined ? true : element.required,
    };
    if (typeof ref.required !== 'boolean') throw reject('invalid_manifest', `${where}.required must be a boolean.`);
    const key = JSON.stringify([ref.connector_id, ref.connector_origin]);
    if (keys.has(key)) throw reject('invalid_manifest', `${where} names a connector listed before.`);
    keys.add(key);
    refs.push(ref as PackageConnectorRef);
  });
  return { connectors: json as Record<string, unknown>[], refs };
}

function parseJson(name: string, text: string): unknown {
  const json = text.replace(/^\uFEFF/, '');
  if (exceedsNestingDepth(json)) throw reject('invalid_manifest', `${name} nests arrays and objects more than ${MAX_JSON_NESTING} levels deep.`);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw reject('invalid_manifest', `${name} is not valid JSON.`);
  }
  const unstorable = findInJson(value, (string) => (isStorableText(string) ? undefined : true));
  if (unstorable) throw reject('invalid_manifest', `${name} holds a NUL character or an unpaired surrogate (at ${unstorable.path || 'the top'}).`);
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireText(object: Record<string, unknown>, key: string, max: number, where: string): string {
  const value = object[key];
  if (typeof value !== 'string' || isBlank(value)) throw reject('invalid_manifest', `${where} needs "${key}", a non-empty string.`);
  if (codePointLength(value.trim()) > max) throw reject('invalid_manifest', `${where}: "${key}" is longer than ${max} characters.`);
  return value.trim();
}

function optionalText(object: Record<string, unknown>, key: string, max: number): string | null {
  if (object[key] === undefined || object[key] === null) return null;
  return requireText(object, key, max, 'suite.json');
}
