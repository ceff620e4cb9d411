import { Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { DatabaseOutageLog } from './outage-log';

describe('DatabaseOutageLog', () => {
  afterEach(() => jest.restoreAllMocks());

  it('logs an outage once when it starts and once when it ends, with its length and the requests it touched', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    let now = Date.parse('2026-11-23T10:00:00Z');
    const clock = { now: () => new Date(now) } as Clock;
    const outage = new DatabaseOutageLog(clock);

    outage.available();
    for (let i = 0; i < 600; i++) outage.unavailable(`connect ECONNREFUSED (${i})`);
    now += 12_500;
    outage.available();
    outage.available();

    expect(warn.mock.calls).toEqual([[expect.stringContaining('connect ECONNREFUSED (0)')]]);
    expect(log.mock.calls).toEqual([['Database available again after 12.5 s; 600 requests were answered without it']]);

    outage.unavailable('again');
    expect(warn).toHaveBeenCalledTimes(2);
  });
});
