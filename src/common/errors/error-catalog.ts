import type { ErrorCode } from './error-code';

/** The application's error codes, sorted by status then code; built once by collectRegistries, frozen. */
export class ErrorCatalog {
  readonly all: readonly ErrorCode[];

  constructor(codes: readonly ErrorCode[]) {
    this.all = Object.freeze([...codes].sort((a, b) => a.status - b.status || a.code.localeCompare(b.code)));
    Object.freeze(this);
  }

  find(code: string): ErrorCode | undefined {
    return this.all.find((entry) => entry.code === code);
  }
}
