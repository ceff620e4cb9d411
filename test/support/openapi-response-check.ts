import type { NestExpressApplication } from '@nestjs/platform-express';
import { buildOpenApiDocument } from '../../src/openapi';
import { OpenApiResponseValidator } from './openapi-response-validator';
import { recordResponses } from './response-recorder';

/** One validator per distinct document in a test file (in practice one), so each schema compiles once. */
const validators = new Map<string, OpenApiResponseValidator>();
const violations: string[] = [];

/** Validates every answer `app` sends against the document it serves; see failOnResponseViolations. */
export function checkResponsesAgainstDocument(app: NestExpressApplication): void {
  const document = buildOpenApiDocument(app);
  const key = JSON.stringify(document);
  const validator = validators.get(key) ?? new OpenApiResponseValidator(document);
  validators.set(key, validator);
  recordResponses(app.getHttpServer(), (response) => {
    const at = `${response.method} ${response.url.length > 120 ? `${response.url.slice(0, 120)}…` : response.url} → ${response.status}`;
    try {
      for (const problem of validator.validate(response)) violations.push(`${at}: ${problem}`);
    } catch (error) {
      violations.push(`${at}: could not be validated: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}

/** Fails the current test (or file) with every answer that differed from the document since the last call. */
export function failOnResponseViolations(): void {
  const found = violations.splice(0);
  if (found.length > 0) throw new Error(`${found.length} answer(s) differ from the OpenAPI document:\n${found.join('\n')}`);
}
