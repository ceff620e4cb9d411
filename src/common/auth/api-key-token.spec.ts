import { generateApiKeyToken, hashApiKeyToken, isWellFormedApiKeyToken } from './api-key-token';

describe('API key tokens', () => {
  it('are wsk_ plus 40 base62 characters, different every time, hashed with SHA-256', () => {
    const a = generateApiKeyToken();
    const b = generateApiKeyToken();
    expect(a.token).toMatch(/^wsk_[0-9A-Za-z]{40}$/);
    expect(a.token).not.toBe(b.token);
    expect(a.hash).toBe(hashApiKeyToken(a.token));
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.displayPrefix).toBe(a.token.slice(0, 10));
  });

  it('hash as the hex SHA-256 of the token, so keys stored before still verify', () => {
    // The digest of this token, computed once with `printf %s <token> | sha256sum`.
    expect(hashApiKeyToken(`wsk_${'A'.repeat(40)}`)).toBe('05220433e32008d608294579b353cd9e613854b876f3da05b3613b857ac99b29');
  });

  it('recognise only well-formed tokens', () => {
    expect(isWellFormedApiKeyToken(generateApiKeyToken().token)).toBe(true);
    expect(isWellFormedApiKeyToken('wsk_short')).toBe(false);
    expect(isWellFormedApiKeyToken(`sk_${'a'.repeat(40)}`)).toBe(false);
    expect(isWellFormedApiKeyToken(`wsk_${'a'.repeat(39)}!`)).toBe(false);
  });
});
