import { randomInt } from 'node:crypto';
import { API_KEY_PREFIX } from '../secret-prefixes';
import { sha256 } from '../sha256';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 40; // 40 base62 characters: about 238 bits
const TOKEN_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH}}$`);

export interface NewApiKeyToken {
  token: string;
  hash: string;
  /** Shown in listings to tell keys apart; reveals nothing usable. */
  displayPrefix: string;
}

export function generateApiKeyToken(): NewApiKeyToken {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(BASE62.length)];
  const token = API_KEY_PREFIX + random;
  return { token, hash: hashApiKeyToken(token), displayPrefix: token.slice(0, API_KEY_PREFIX.length + 6) };
}

/** What is stored of a key, and what every authenticated request looks its key up by. */
export function hashApiKeyToken(token: string): string {
  return sha256(token);
}

/** A token of the wrong shape cannot be a key: it is refused without a database look-up. */
export function isWellFormedApiKeyToken(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}
