import { UploadAdmission } from '../src/modules/uploads/upload-admission';
import { captureLogs } from './support/log-capture';
import { until, useTestApp } from './support/test-app';
import { packageOf, partialUpload, stored, UPLOADS } from './support/uploads';

const MIB = 1024 * 1024;

// Its own file: Nest's loggers write to the first app's logger of a test file.
describe('an upload the client breaks off', () => {
  const logs = captureLogs();
  const fixture = useTestApp({ overrides: { LOG_LEVEL: 'log', LOG_FORMAT: 'json' }, logDestination: logs.destination, listen: true });

  it('is logged as one warning with its outcome, with no error and no request line claiming a status', async () => {
    const admission = fixture.app.app.get(UploadAdmission);
    const broken = await partialUpload(fixture.baseUrl, fixture.tenant, 'package', await packageOf(2 * MIB), 512 * 1024);
    await until(() => admission.usage().inFlight === 1);
    // Usually broken off while the file part is read; closed earlier (during authentication), it is logged the same way.
    await new Promise((resolve) => setTimeout(resolve, 300));
    broken.socket.destroy();
    await until(() => logs.entries().some((entry) => entry.route === UPLOADS));
    await until(() => logs.entries().some((entry) => entry.context === 'Uploads'));
    await until(() => admission.usage().inFlight === 0);
    // Anything else written about it would come right after.
    await new Promise((resolve) => setTimeout(resolve, 200));

    const entries = logs.entries();
    expect(entries.filter((entry) => entry.level === 'error' || entry.level === 'fatal')).toEqual([]);
    const requestLines = entries.filter((entry) => entry.route === UPLOADS);
    expect(requestLines).toEqual([expect.objectContaining({ level: 'warn', method: 'POST', aborted: true, msg: 'request aborted' })]);
    expect(requestLines[0]).not.toHaveProperty('status');
    expect(entries.filter((entry) => entry.context === 'Uploads')).toEqual([
      expect.objectContaining({ level: 'warn', msg: expect.stringMatching(/^Upload broken off by the client after \d+ bytes of the request; nothing of it was kept\.$/) }),
    ]);
    expect(await stored(fixture.database, fixture.tenant.organizationId)).toEqual({ uploads: 0, chunks: 0, bytes: 0 });
  });

  it('leaves the request line of a finished upload as it was: info, with its status', async () => {
    const response = await fixture.http().post(UPLOADS).set('Authorization', fixture.tenant.bearer).field('kind', 'package').attach('file', await packageOf(1024), 'suite.zip').expect(201);
    await until(() => logs.entries().some((entry) => entry.route === UPLOADS && entry.status === 201));
    expect(logs.entries().filter((entry) => entry.route === UPLOADS && entry.status === 201)).toEqual([
      expect.objectContaining({ level: 'info', msg: 'request completed', request_id: response.headers['x-request-id'] }),
    ]);
  });
});
