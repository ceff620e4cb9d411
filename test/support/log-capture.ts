import type { DestinationStream } from 'pino';

export interface CapturedLogs {
  /** Hand this to startTestApp instead of stdout. */
  destination: DestinationStream;
  /** Everything written, as written. */
  text(): string;
  /** Every line parsed (LOG_FORMAT=json). */
  entries(): Array<Record<string, unknown>>;
}

/** Collects the log lines of an app instance in memory. */
export function captureLogs(): CapturedLogs {
  const chunks: string[] = [];
  const text = () => chunks.join('');
  return {
    destination: { write: (chunk: string) => void chunks.push(chunk) },
    text,
    entries: () =>
      text()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
