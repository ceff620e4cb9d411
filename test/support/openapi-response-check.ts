import { ModulesContainer } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Registries } from '../../src/common/registries/registries';
import { buildOpenApiDocument } from '../../src/openapi';
import { OpenApiResponseValidator, type RecordedResponse } from './openapi-response-validator';
import { recordResponses } from './response-recorder';

/**
 * One validator per distinct set of controllers and registries in a test file (most files have
 * one), so that the document is built and each schema compiled once: the document is made from the
 * controllers' decorators and the lists of the app's Registries (the same object for every app
 * without extra modules), never from the app's settings.
 */
const validators: Array<{ controllers: unknown[]; registries: Registries; validator: OpenApiResponseValidator }> = [];
const violations: string[] = [];

function controllersOf(app: NestExpressApplication): unknown[] {
  return [...app.get(ModulesContainer).values()].flatMap((module) => [...module.controllers.keys()]);
}

function validatorFor(app: NestExpressApplication): OpenApiResponseValidator {
  const controllers = controllersOf(app);
  const registries = app.get(Registries);
  const known = validators.find((entry) => entry.registries === registries && entry.controllers.length === controllers.length && entry.controllers.every((controller, i) => controller === controllers[i]));
  if (known) return known.validator;
  const validator = new OpenApiResponseValidator(buildOpenApiDocument(app), registries.errorReplyFormats);
  validators.push({ controllers, registries, validator });
  return validator;
}

/** Validates every answer `app` sends against the document it serves; see failOnResponseViolations. */
export function checkResponsesAgainstDocument(app: NestExpressApplication): void {
  const validator = validatorFor(app);
  const registries = app.get(Registries);
  recordResponses(app.getHttpServer(), (response) => {
    const at = `${response.method} ${response.url.length > 120 ? `${response.url.slice(0, 120)}…` : response.url} → ${response.status}`;
    try {
      for (const problem of validator.validate(response)) violations.push(`${at}: ${problem}`);
      const unlisted = unlistedErrorCode(response, registries);
      if (unlisted) violations.push(`${at}: ${unlisted}`);
    } catch (error) {
      violations.push(`${at}: could not be validated: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}

/**
 * An error answered with a code the app's error catalog lacks, or with another status than the
 * catalog's: a code its module does not list in its `definitions`, which the documentation checks
 * (test/openapi-errors.e2e-spec.ts) would then miss.
 */
function unlistedErrorCode(response: RecordedResponse, registries: Registries): string | undefined {
  if (response.status < 400 || !response.jsonBody) return undefined;
  let code: unknown;
  try {
    code = (JSON.parse(response.jsonBody.toString('utf8')) as { code?: unknown } | null)?.code;
  } catch {
    return undefined; // the document check reports a body that is not JSON
  }
  if (typeof code !== 'string') return undefined;
  const listed = registries.errors.find(code);
  if (listed?.status === response.status) return undefined;
  return listed ? `code ${code} answered with ${response.status}, listed with ${listed.status}` : `code ${code} is in no module's definitions (the app's error catalog)`;
}

/** Fails the current test (or file) with every answer that differed from the document since the last call. */
export function failOnResponseViolations(): void {
  const found = violations.splice(0);
  if (found.length > 0) throw new Error(`${found.length} answer(s) differ from the OpenAPI document:\n${found.join('\n')}`);
}
