import { randomFillSync } from 'node:crypto';

// Random bytes are drawn from the system a pool at a time: one randomFillSync per id costs more
// than the rest of making it. The ids are unique and unguessable enough to be keys, not secrets.
const POOL = Buffer.allocUnsafe(16 * 256);
let poolOffset = POOL.length;

function sixteenRandomBytes(): Buffer {
  if (poolOffset === POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  poolOffset += 16;
  return POOL.subarray(poolOffset - 16, poolOffset);
}

/** The last Unix millisecond a v7 id's 48 bits of time hold (in the year 10889). */
export const UUID_V7_MAX_MILLIS = 2 ** 48 - 1;

/** The milliseconds of `at`, refused when a v7 id cannot hold them (before 1970, past the last, or no time at all). */
function v7Millis(at: Date): number {
  const millis = at.getTime();
  if (millis >= 0 && millis <= UUID_V7_MAX_MILLIS) return millis;
  throw new RangeError(`A UUID v7 holds instants from 1970 to ${new Date(UUID_V7_MAX_MILLIS).toISOString()}, not ${String(at)}`);
}

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits, so ids sort by
 * creation time. Written here rather than taken from the `uuid` package: its releases that carry
 * v7 and still load as CommonJS are no longer maintained, and the current ones are ESM only.
 */
export function uuidV7(at: Date): string {
  const millis = v7Millis(at);
  const bytes = sixteenRandomBytes();
  bytes.writeUIntBE(millis, 0, 6);
  bytes[6] = 0x70 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The smallest v7 id of the millisecond `at`: ids below it were made before `at`. */
export function uuidV7Floor(at: Date): string {
  const hex = v7Millis(at).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

/** The Unix milliseconds in a v7 id's first 48 bits (when it was made). */
export function uuidV7Millis(id: string): number {
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}
