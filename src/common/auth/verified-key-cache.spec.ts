import { loadConfig } from '../../config/app-config';
import { Clock } from '../clock';
import type { Principal } from './principal';
import { VerifiedKeyCache } from './verified-key-cache';

class PinnedClock extends Clock {
  constructor(public nowMs = Date.parse('2026-01-01T00:00:00Z')) {
    super();
  }

  override now(): Date {
    return new Date(this.nowMs);
  }
}

const alice: Principal = { apiKeyId: 'key-a', organizationId: 'org-1', scopes: ['admin.v1.quota.read'] };
const bob: Principal = { apiKeyId: 'key-b', organizationId: 'org-1', scopes: ['admin.v1.quota.read'] };

function listeningCache(maxAgeSeconds = 300, clock = new PinnedClock()): VerifiedKeyCache {
  const cache = new VerifiedKeyCache(loadConfig({}, { API_KEY_CACHE_MAX_AGE_SECONDS: maxAgeSeconds }), clock);
  cache.setListening(true);
  return cache;
}

function cacheVerified(cache: VerifiedKeyCache, hash: string, principal: Principal): void {
  cache.store(hash, principal, cache.startLookup());
}

describe('VerifiedKeyCache', () => {
  it('answers a verified key from memory while listening', () => {
    const cache = listeningCache();
    cacheVerified(cache, 'hash-a', alice);
    expect(cache.get('hash-a')).toEqual(alice);
    expect(cache.get('hash-b')).toBeUndefined();
  });

  it('drops every entry of a revoked key id, and only those', () => {
    const cache = listeningCache();
    cacheVerified(cache, 'hash-a', alice);
    cacheVerified(cache, 'hash-b', bob);
    cache.revoked('key-a');
    expect(cache.get('hash-a')).toBeUndefined();
    expect(cache.get('hash-b')).toEqual(bob);
  });

  it('forgets a revoked key in the outage memory too, which outlives the loss of the listener', () => {
    const cache = listeningCache();
    cache.remember('hash-a', alice);
    cache.remember('hash-b', bob);
    cache.setListening(false);
    expect(cache.recall('hash-a', 60_000)).toEqual(alice);
    cache.revoked('key-a');
    expect(cache.recall('hash-a', 60_000)).toBeUndefined();
    expect(cache.recall('hash-b', 60_000)).toEqual(bob);
    cache.forget('hash-b');
    expect(cache.recall('hash-b', 60_000)).toBeUndefined();
  });

  it('does not cache a key read before a revocation that was heard while the read was under way', () => {
    const cache = listeningCache();
    const lookup = cache.startLookup();
    cache.revoked('key-a'); // the revocation's NOTIFY is handled before the read's answer arrives
    cache.store('hash-a', alice, lookup);
    expect(cache.get('hash-a')).toBeUndefined();

    cacheVerified(cache, 'hash-a', alice); // a lookup started after it caches normally
    expect(cache.get('hash-a')).toEqual(alice);
  });

  it('does not cache a key read before the listener (re)connected', () => {
    const cache = listeningCache();
    const lookup = cache.startLookup();
    cache.setListening(false);
    cache.setListening(true);
    cache.store('hash-a', alice, lookup);
    expect(cache.get('hash-a')).toBeUndefined();
  });

  it('neither answers nor caches while not listening, and starts empty when listening again', () => {
    const cache = listeningCache();
    cacheVerified(cache, 'hash-a', alice);
    cache.setListening(false);
    expect(cache.get('hash-a')).toBeUndefined();
    cacheVerified(cache, 'hash-b', bob);
    cache.setListening(true);
    expect(cache.get('hash-a')).toBeUndefined();
    expect(cache.get('hash-b')).toBeUndefined();
  });

  it('answers nothing before the listener first succeeds', () => {
    const cache = new VerifiedKeyCache(loadConfig({}, {}), new PinnedClock());
    cacheVerified(cache, 'hash-a', alice);
    expect(cache.get('hash-a')).toBeUndefined();
  });

  it('forgets an entry once it reaches the maximum age', () => {
    const clock = new PinnedClock();
    const cache = listeningCache(300, clock);
    cacheVerified(cache, 'hash-a', alice);
    clock.nowMs += 299_999;
    expect(cache.get('hash-a')).toEqual(alice);
    clock.nowMs += 1;
    expect(cache.get('hash-a')).toBeUndefined();
    clock.nowMs -= 1;
    expect(cache.get('hash-a')).toBeUndefined();
  });

  it('caches nothing when the maximum age is 0', () => {
    const cache = listeningCache(0);
    expect(cache.enabled).toBe(false);
    cacheVerified(cache, 'hash-a', alice);
    expect(cache.get('hash-a')).toBeUndefined();
  });

  describe('revocations polled (DATABASE_NOTIFICATIONS=off)', () => {
    function polledCache(clock: PinnedClock, maxAgeSeconds = 300): VerifiedKeyCache {
      return new VerifiedKeyCache(loadConfig({}, { API_KEY_CACHE_MAX_AGE_SECONDS: maxAgeSeconds, DATABASE_NOTIFICATIONS: 'off' }), clock);
    }

    it('answers only until the time the last poll allowed, and caches nothing after it', () => {
      const clock = new PinnedClock();
      const cache = polledCache(clock);
      expect(cache.get('hash-a')).toBeUndefined();
      cache.heardUntil(clock.nowMs + 2000);
      cacheVerified(cache, 'hash-a', alice);
      clock.nowMs += 1999;
      expect(cache.get('hash-a')).toEqual(alice);
      clock.nowMs += 1;
      expect(cache.get('hash-a')).toBeUndefined();
      cacheVerified(cache, 'hash-b', bob);
      cache.heardUntil(clock.nowMs + 2000);
      expect(cache.get('hash-b')).toBeUndefined();
      expect(cache.get('hash-a')).toEqual(alice); // a poll renewed it: the entry was never dropped
    });

    it('forgets every key, and every key read meanwhile, when some key was revoked', () => {
      const clock = new PinnedClock();
      const cache = polledCache(clock);
      cache.heardUntil(clock.nowMs + 2000);
      cacheVerified(cache, 'hash-a', alice);
      cache.remember('hash-a', alice);
      const lookup = cache.startLookup();
      cache.someRevoked();
      cache.store('hash-b', bob, lookup);
      expect([cache.get('hash-a'), cache.get('hash-b'), cache.recall('hash-a', 60_000)]).toEqual([undefined, undefined, undefined]);
    });

    it('keeps a key at most 60 s however long API_KEY_CACHE_MAX_AGE_SECONDS is', () => {
      const clock = new PinnedClock();
      const cache = polledCache(clock, 300);
      cacheVerified(cache, 'hash-a', alice);
      cache.heardUntil(clock.nowMs + 120_000);
      cacheVerified(cache, 'hash-a', alice);
      clock.nowMs += 59_999;
      expect(cache.get('hash-a')).toEqual(alice);
      clock.nowMs += 1;
      expect(cache.get('hash-a')).toBeUndefined();
    });
  });
});
