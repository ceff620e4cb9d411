import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { errorTypeForStatus, type ErrorCode } from './error-code';
import { ErrorBodyDto } from './error-body.dto';

/** An error an operation can answer with, when, and (if the code is documented twice) its example's name. */
export type DocumentedError = [code: ErrorCode, when: string, exampleName?: string];

/** The documented errors by HTTP status, each status with its description lines and examples. */
export function errorResponsesByStatus(errors: readonly DocumentedError[]): Map<number, { description: string; examples: Record<string, { summary: string; value: object }> }> {
  const byStatus = new Map<number, DocumentedError[]>();
  for (const error of errors) {
    const status = error[0].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), error]);
  }
  return new Map(
    [...byStatus].map(([status, documented]) => [
      status,
      {
        description: documented.map(([{ code }, when]) => `- \`${code}\`: ${when}`).join('\n'),
        examples: Object.fromEntries(
          documented.map(([{ code }, when, exampleName]) => [exampleName ?? code, { summary: when, value: { code, error: errorTypeForStatus(status), detail: when } }]),
        ),
      },
    ]),
  );
}

/**
 * Documents an operation's own error responses with the error body schema: per status, a list of
 * the codes and an example of each. @nestjs/swagger merges entries of one status (descriptions
 * appended, examples joined), so several uses on one method (e.g. with @Idempotent()) add up.
 * Errors of the global layers (body parsing, authentication, rate limit, scope, database) are not
 * declared here: the OpenAPI post-processing documents them once for every operation they apply to
 * (cross-cutting-errors.ts).
 */
export function ApiErrorResponses(...errors: DocumentedError[]) {
  return applyDecorators(
    ...[...errorResponsesByStatus(errors)].map(([status, { description, examples }]) => ApiResponse({ status, type: ErrorBodyDto, description, examples })),
  );
}
