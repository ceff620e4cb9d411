import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../clock';
import type { Principal } from './principal';

// A few hundred bytes each: bounds memory however many keys call.
const MAX_CACHED_KEYS = 10_000;
/** Without notifications (revocations polled), the longest a key is cached, if API_KEY_CACHE_MAX_AGE_SECONDS is longer. */
export const POLLED_MAX_AGE_MS = 60_000;

interface CachedKey {
  principal: Principal;
  cachedAtMs: number;
}

interface RememberedKey {
  principal: Principal;
  verifiedAtMs: number;
}

/**
 * Keys the database verified, answered from memory only while revocations are being heard
 * (`setListening(true)` for NOTIFY, `heardUntil` for a polled revocation version) and for at most
 * API_KEY_CACHE_MAX_AGE_SECONDS (POLLED_MAX_AGE_MS at most when polled). Keyed by the key's hash,
 * never the key itself.
 *
 * A lookup that read a key just before its revocation committed may finish after the revocation's
 * notification was handled; it must not cache the key again. So every invalidation bumps a
 * generation, and a lookup caches its key only if no invalidation happened since it started.
 */
@Injectable()
export class VerifiedKeyCache {
  private readonly entries = new LRUCache<string, CachedKey>({ max: MAX_CACHED_KEYS });
  // Keys of outage-tolerant routes, kept across listener loss (unlike `entries`) for recall during
  // an outage; a heard revocation drops them too.
  private readonly remembered = new LRUCache<string, RememberedKey>({ max: MAX_CACHED_KEYS });
  private readonly maxAgeMs: number;
  private generation = 0;
  /** Until when (clock milliseconds) revocations are known to be heard: Infinity while listening. */
  private heardUntilMs = 0;

  constructor(
    config: AppConfig,
    private readonly clock: Clock,
  ) {
    const maxAgeMs = config.API_KEY_CACHE_MAX_AGE_SECONDS * 1000;
    this.maxAgeMs = config.DATABASE_NOTIFICATIONS === 'off' ? Math.min(maxAgeMs, POLLED_MAX_AGE_MS) : maxAgeMs;
  }

  /** False when configured off (max age 0): then nothing needs to listen for revocations. */
  get enabled(): boolean {
    return this.maxAgeMs > 0;
  }

  get(hash: string): Principal | undefined {
    const nowMs = this.clock.now().getTime();
    if (nowMs >= this.heardUntilMs) return undefined;
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (nowMs - entry.cachedAtMs < this.maxAgeMs) return entry.principal;
    this.entries.delete(hash);
    return undefined;
  }

  /** Call before reading a key from the database; hand the result to `store`. */
  startLookup(): number {
    return this.generation;
  }

  /** Caches a key the database verified, unless an invalidation happened since `startLookup`. */
  store(hash: string, principal: Principal, lookup: number): void {
    const nowMs = this.clock.now().getTime();
    if (!this.enabled || nowMs >= this.heardUntilMs || lookup !== this.generation) return;
    this.entries.set(hash, { principal, cachedAtMs: nowMs });
  }

  /** A key was revoked: forget it, in the cache and in the outage memory. */
  revoked(apiKeyId: string): void {
    this.generation += 1;
    dropKey(this.entries, apiKeyId);
    dropKey(this.remembered, apiKeyId);
  }

  /**
   * Some key was revoked, which one is not known (the revocation version changed): forget every
   * key, in the cache and in the outage memory.
   */
  someRevoked(): void {
    this.generation += 1;
    this.entries.clear();
    this.remembered.clear();
  }

  /** Remembers a key just verified (or answered from the cache) for recall during an outage. */
  remember(hash: string, principal: Principal): void {
    this.remembered.set(hash, { principal, verifiedAtMs: this.clock.now().getTime() });
  }

  /** A key remembered less than `graceMs` ago; the database could not be asked. */
  recall(hash: string, graceMs: number): Principal | undefined {
    const entry = this.remembered.get(hash);
    return entry && this.clock.now().getTime() - entry.verifiedAtMs < graceMs ? entry.principal : undefined;
  }

  /** The database says the key is unknown or revoked. */
  forget(hash: string): void {
    this.remembered.delete(hash);
  }

  /**
   * Whether revocations are being heard. Either way everything cached is dropped: while not
   * listening, revocations may be missed; once listening again, they may have been missed.
   */
  setListening(listening: boolean): void {
    this.generation += 1;
    this.entries.clear();
    this.heardUntilMs = listening ? Infinity : 0;
  }

  /**
   * Revocations are heard by polling: every revocation committed before the poll that ended now
   * has been applied (`someRevoked`), and the next poll is due well before `untilMs` (clock
   * milliseconds), after which nothing is answered from memory unless a poll has renewed it.
   */
  heardUntil(untilMs: number): void {
    this.heardUntilMs = untilMs;
  }
}

function dropKey<T extends { principal: Principal }>(map: LRUCache<string, T>, apiKeyId: string): void {
  const hashes = [...map.entries()].filter(([, entry]) => entry.principal.apiKeyId === apiKeyId).map(([hash]) => hash);
  for (const hash of hashes) map.delete(hash);
}
