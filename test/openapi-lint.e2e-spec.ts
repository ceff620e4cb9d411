import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { useTestApp } from './support/test-app';

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

/** The served document, linted by @redocly/cli with the rules of redocly.yaml (recommended). */
describe('OpenAPI document lint', () => {
  const fixture = useTestApp();

  it('has no errors and no warnings under the configured rules', async () => {
    const document = (await fixture.http().get('/docs-json').expect(200)).body;
    const file = join(mkdtempSync(join(tmpdir(), 'wsa-openapi-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    // redocly exits 1 when it finds errors; the JSON report on stdout is read either way.
    const { stdout } = await promisify(execFile)('node_modules/.bin/redocly', ['lint', file, '--config=redocly.yaml', '--format=json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((failure: { stdout: string }) => failure);
    const problems = (JSON.parse(stdout) as { problems: LintProblem[] }).problems.map(
      (problem) => `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`,
    );
    expect(problems).toEqual([]);
  }, 30_000);
});
