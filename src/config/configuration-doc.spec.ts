import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

describe('docs/configuration.md and .env.example', () => {
  it('list exactly the settings AppConfig declares, with their defaults, rules and doc comments', () => {
    const check = spawnSync(process.execPath, [join(__dirname, '..', '..', 'scripts', 'config-reference.mjs'), '--check'], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });
});
