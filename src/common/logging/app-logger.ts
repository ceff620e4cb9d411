import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import type { AppConfig, LogLevelName } from '../../config/app-config';

/** LOG_LEVEL keeps Nest's names; pino calls `log` info and `verbose` trace. */
const PINO_LEVELS: Record<LogLevelName, Level> = { error: 'error', warn: 'warn', log: 'info', debug: 'debug', verbose: 'trace' };

/**
 * The one pino logger of an app instance: application events (through Nest's Logger) and the
 * request lines. Written synchronously: a line is out before the process exits, and no worker
 * thread is involved. `destination` replaces stdout (tests read the lines).
 */
export function createAppLogger(config: Pick<AppConfig, 'LOG_LEVEL' | 'LOG_FORMAT'>, destination?: DestinationStream): Logger {
  const target = destination ?? pino.destination({ dest: 1, sync: true });
  return pino(
    {
      level: PINO_LEVELS[config.LOG_LEVEL],
      // Level names rather than numbers: what log collectors and people search for.
      formatters: { level: (label) => ({ level: label }) },
      // pino's default `time`, milliseconds since the epoch: an ISO string costs a Date per line.
    },
    config.LOG_FORMAT === 'text' ? readableLines(target) : target,
  );
}

/** One readable line per entry: `[time] INFO: [context] message {other fields}`. */
function readableLines(target: DestinationStream): DestinationStream {
  // Loaded only for text: the JSON format (the image's) never pays for it.
  const { prettyFactory } = require('pino-pretty') as typeof import('pino-pretty');
  const prettify = prettyFactory({
    singleLine: true,
    colorize: false,
    translateTime: 'SYS:standard',
    ignore: 'pid,hostname,context',
    messageFormat: '{if context}[{context}] {end}{msg}',
  });
  return { write: (line: string) => target.write(prettify(line)) };
}
