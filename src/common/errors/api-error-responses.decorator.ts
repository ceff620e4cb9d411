import { ApiResponse } from '@nestjs/swagger';
import { ErrorCode, errorTypeForStatus, STATUS_BY_CODE } from './error-code';
import { ErrorBodyDto } from './error-body.dto';

/** An error an operation can answer with, and when. */
export type DocumentedError = [code: ErrorCode, when: string];

const DOCUMENTED_ERRORS = 'openapi:documented-errors';

/**
 * Documents error responses with the error body schema, one entry per status listing every
 * code (with an example each); a code documented twice gets both explanations. OpenAPI keeps one response per status, so each use merges with
 * the errors documented by earlier decorators on the same method (e.g. @Idempotent()) rather
 * than replacing them.
 */
export function ApiErrorResponses(...errors: DocumentedError[]): MethodDecorator {
  return (target, propertyKey, descriptor) => {
    const all: DocumentedError[] = [...(Reflect.getMetadata(DOCUMENTED_ERRORS, descriptor.value as object) ?? []), ...errors];
    Reflect.defineMetadata(DOCUMENTED_ERRORS, all, descriptor.value as object);
    const byStatus = new Map<number, Map<ErrorCode, string>>();
    for (const [code, when] of all) {
      const status = STATUS_BY_CODE[code];
      const codes = byStatus.get(status) ?? new Map<ErrorCode, string>();
      codes.set(code, codes.has(code) ? `${codes.get(code)} Also: ${when}` : when);
      byStatus.set(status, codes);
    }
    for (const [status, codes] of byStatus) {
      const documented = [...codes];
      ApiResponse({
        status,
        type: ErrorBodyDto,
        description: documented.map(([code, when]) => `- \`${code}\`: ${when}`).join('\n'),
        examples: Object.fromEntries(
          documented.map(([code, when]) => [code, { summary: when, value: { code, error: errorTypeForStatus(status), detail: when } }]),
        ),
      })(target, propertyKey, descriptor);
    }
  };
}
