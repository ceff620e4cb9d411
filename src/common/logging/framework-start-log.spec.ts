import type { LoggerService } from '@nestjs/common';
import { FrameworkStartLogQuieter } from './framework-start-log';

describe('FrameworkStartLogQuieter', () => {
  function recording(): { inner: LoggerService; lines: string[] } {
    const lines: string[] = [];
    const line = (level: string) => (message: unknown, ...rest: unknown[]) => lines.push(`${level} ${String(message)} ${rest.join(' ')}`.trim());
    return { inner: { log: line('log'), error: line('error'), warn: line('warn'), debug: line('debug'), verbose: line('verbose') }, lines };
  }

  it("writes Nest's module and route narration at debug, and everything else at its own level", () => {
    const { inner, lines } = recording();
    const logger = new FrameworkStartLogQuieter(inner);
    logger.log('Mapped {/healthz, GET} route', 'RouterExplorer');
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('Nest application successfully started', 'NestApplication');
    logger.log('Ready: start-up complete', 'Main');
    logger.warn('careful', 'RouterExplorer');
    expect(lines).toEqual([
      'debug Mapped {/healthz, GET} route RouterExplorer',
      'debug AppModule dependencies initialized InstanceLoader',
      'log Nest application successfully started NestApplication',
      'log Ready: start-up complete Main',
      'warn careful RouterExplorer',
    ]);
  });
});
