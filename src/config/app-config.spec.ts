import { ConfigError, loadConfig, unknownSettingLookalikes } from './app-config';

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
    ['REDIS_URL', 'http://cache:6379'],
    ['REDIS_URL', 'cache:6379'],
    ['REDIS_KEY_PREFIX', 'my prefix'],
    ['TRUST_PROXY', 'true'],
    ['TRUST_PROXY', '1'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', 'loopback,,10.0.0.1'],
    ['TRUST_PROXY', 'proxy.internal'],
    ['METRICS_PORT', 'nine'],
    ['METRICS_PORT', '65536'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(`${name}=${JSON.stringify(value)}`);
  });

  it('says only "must be an integer" of a value that is not one, and only the broken bound of one out of range', () => {
    expect(() => loadConfig({ PORT: '80.0' })).toThrow(/^Invalid configuration:\n  PORT="80.0": PORT must be an integer number$/);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(/^Invalid configuration:\n  PORT="70000": PORT must not be greater than 65535$/);
  });

  it('reads the Redis URL and the trusted proxies, a list of addresses, ranges and names', () => {
    const config = loadConfig({ REDIS_URL: 'rediss://:secret@cache.internal:6380/2', TRUST_PROXY: 'loopback, 10.0.0.0/8,fd00::1 ,uniquelocal' });
    expect(config.REDIS_URL).toBe('rediss://:secret@cache.internal:6380/2');
    expect(config.trustedProxies).toEqual(['loopback', '10.0.0.0/8', 'fd00::1', 'uniquelocal']);
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(loadConfig({ TRUST_PROXY: '' }).trustedProxies).toEqual([]);
  });

  it('leaves the metrics server off unless METRICS_PORT is set (0 picks a free port)', () => {
    expect(loadConfig({}).METRICS_PORT).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '' }).METRICS_PORT).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: '9464' }).METRICS_PORT).toBe(9464);
    expect(loadConfig({ METRICS_PORT: '0' }).METRICS_PORT).toBe(0);
  });

  it('refuses the embedded database under NODE_ENV=production unless it is asked for, naming DATABASE_URL', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/DATABASE_URL is not set/);
    expect(() => loadConfig({ NODE_ENV: 'production', DATABSE_URL: 'postgresql://u@db/app' })).toThrow(/DATABASE_URL is not set/);
    expect(loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgresql://u@db/app' }).usesEmbeddedDatabase).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', EMBEDDED_DATABASE_IN_PRODUCTION: 'true' }).usesEmbeddedDatabase).toBe(true);
    expect(loadConfig({ NODE_ENV: 'development' }).usesEmbeddedDatabase).toBe(true);
  });

  it('takes DATABASE_DIRECT_URL beside DATABASE_URL, and refuses it alone', () => {
    const config = loadConfig({ DATABASE_URL: 'postgresql://u@pooler:6432/app', DATABASE_DIRECT_URL: 'postgresql://u@db:5432/app' });
    expect(config).toMatchObject({ DATABASE_URL: 'postgresql://u@pooler:6432/app', DATABASE_DIRECT_URL: 'postgresql://u@db:5432/app' });
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@db/app', DATABASE_DIRECT_URL: '' }).DATABASE_DIRECT_URL).toBeUndefined();
    expect(() => loadConfig({ DATABASE_DIRECT_URL: 'postgresql://u@db:5432/app' })).toThrow(/DATABASE_DIRECT_URL is set without DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://u@db/app', DATABASE_DIRECT_URL: 'mysql://db/app' })).toThrow(/DATABASE_DIRECT_URL=/);
  });

  it('takes DATABASE_REPLICA_URL beside DATABASE_URL, and refuses it on the embedded database', () => {
    const config = loadConfig({ DATABASE_URL: 'postgresql://u@db:5432/app', DATABASE_REPLICA_URL: 'postgresql://u@replica:5432/app', DATABASE_REPLICA_POOL_SIZE: '4' });
    expect(config).toMatchObject({ DATABASE_REPLICA_URL: 'postgresql://u@replica:5432/app', DATABASE_REPLICA_POOL_SIZE: 4 });
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@db/app', DATABASE_REPLICA_URL: '' }).DATABASE_REPLICA_URL).toBeUndefined();
    expect(() => loadConfig({ DATABASE_REPLICA_URL: 'postgresql://u@replica:5432/app' })).toThrow(/DATABASE_REPLICA_URL is set without DATABASE_URL: the embedded database has no replicas/);
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://u@db/app', DATABASE_REPLICA_URL: 'mysql://replica/app' })).toThrow(/DATABASE_REPLICA_URL=/);
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://u@db/app', DATABASE_REPLICA_POOL_SIZE: '0' })).toThrow(/DATABASE_REPLICA_POOL_SIZE=/);
  });

  it('names variables that look like settings but are none, and nothing else', () => {
    const env = { DATABSE_URL: 'x', DATABASE_POOL_SIZ: '3', METERING_TTL: '1', REDIS_HOST: 'h', TRUST_PROXIES: 'loopback', REDIS_URL: 'redis://h', PORT: '80', PATH: '/bin', HOME: '/root', HOST: 'h', USER: 'u', HOSTNAME: 'x', NODE_ENV: 'production', LANG: 'C' };
    expect(unknownSettingLookalikes(env)).toEqual(['DATABASE_POOL_SIZ', 'DATABSE_URL', 'METERING_TTL', 'REDIS_HOST', 'TRUST_PROXIES']);
  });

  it('warns about UPLOAD_DIR, a setting of releases that kept uploads on disk, and does not read it', () => {
    expect(unknownSettingLookalikes({ UPLOAD_DIR: '/var/lib/uploads' })).toEqual(['UPLOAD_DIR']);
    expect(loadConfig({ UPLOAD_DIR: '/var/lib/uploads' })).not.toHaveProperty('UPLOAD_DIR');
  });
});
