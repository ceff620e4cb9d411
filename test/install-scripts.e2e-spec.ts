import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// `npm install` runs no dependency's install script that package.json's allowScripts does not
// decide (README, "Install messages"); npm 11 warns about every undecided one at install.
describe('install scripts of the dependencies', () => {
  it('are each allowed or denied in package.json, so that npm install prints no install-scripts warning', () => {
    const listed = spawnSync('npm', ['install-scripts', 'ls'], { cwd: join(__dirname, '..'), encoding: 'utf8', timeout: 60_000 });
    expect({ status: listed.status, output: `${listed.stdout}${listed.stderr}`.trim() }).toEqual({
      status: 0,
      output: 'No packages with unreviewed install scripts.',
    });
  });
});
