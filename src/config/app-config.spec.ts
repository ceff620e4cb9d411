import { ConfigError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('uses the documented defaults: port 3000, embedded database, 1 MiB JSON bodies', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ PORT: 3000, DATA_DIR: '.data/pglite', JSON_BODY_LIMIT_BYTES: 1048576, LOG_LEVEL: 'log' });
    expect(config.usesEmbeddedDatabase).toBe(true);
  });

  it('reads numbers and the database URL from the environment', () => {
    const config = loadConfig({ PORT: '8080', DATABASE_URL: 'postgresql://u@db:5432/app', RATE_LIMIT_PER_MINUTE: '0' });
    expect(config).toMatchObject({ PORT: 8080, DATABASE_URL: 'postgresql://u@db:5432/app', RATE_LIMIT_PER_MINUTE: 0 });
    expect(config.usesEmbeddedDatabase).toBe(false);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['PORT', '0x50'],
    ['PORT', '1e3'],
    ['PORT', ' 42 '],
    ['PORT', '-1'],
    ['PORT', '80.0'],
    ['DATABASE_POOL_SIZE', '0b11'],
    ['JSON_BODY_LIMIT_BYTES', '99999999999999999999'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['LOG_LEVEL', 'chatty'],
    ['LOG_FORMAT', 'xml'],
    ['JSON_BODY_LIMIT_BYTES', '12'],
    ['PUBLIC_BASE_URL', 'ftp://example.com'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(`${name}=${JSON.stringify(value)}`);
  });
});
