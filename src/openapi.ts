import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { BEARER_SCHEME, REQUIRED_SCOPE_EXTENSION } from './common/auth/auth.decorators';
import { documentCrossCuttingErrors } from './common/errors/cross-cutting-errors';
import { documentErrorReplyFormats } from './common/errors/error-reply-format-document';
import { documentRateLimitHeaders } from './common/rate-limit/rate-limit-document';
import { Registries } from './common/registries/registries';
import { withRegistryEnums } from './common/registries/registry-list';
import { MAX_JSON_INTEGER } from './common/validation/field-rules';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Workspace Administration API')
    .setDescription(
      'Departments, expert suites and the metering policy of an organization. Every call is made with an ' +
        'application API key (`Authorization: Bearer <key>`) holding the scope the operation names; every failure ' +
        'returns the error body `{code, error, detail, details?}`.',
    )
    .setVersion('v1')
    // Relative: the document describes whichever address it was fetched from.
    .addServer('/')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'wsk_ API key', description: 'Application API key (wsk_...), issued with the admin CLI' }, BEARER_SCHEME)
    .build();
  const registries = app.get(Registries);
  const document = withRegistryEnums(SwaggerModule.createDocument(app, config), registries);
  documentCrossCuttingErrors(document);
  documentErrorReplyFormats(document, registries.errorReplyFormats);
  documentRateLimitHeaders(document);
  describeRequiredScopes(document);
  stateIntegerRange(document);
  return document;
}

/**
 * Every integer of the API, in requests and responses, is a JSON number held exactly: at most
 * 2^53 − 1 (see IsJsonInteger). Stated here once for every integer schema of the document, so that
 * no field can miss it.
 */
function stateIntegerRange(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(stateIntegerRange);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  if (schema.type === 'integer') schema.maximum = Math.min(Number(schema.maximum ?? MAX_JSON_INTEGER), MAX_JSON_INTEGER);
  for (const [key, value] of Object.entries(schema)) {
    if (key !== 'example' && key !== 'examples') stateIntegerRange(value);
  }
}

/** Puts each operation's scope where a reader of Swagger UI sees it: the top of its description. */
function describeRequiredScopes(document: OpenAPIObject): void {
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem)) {
      const scope = (operation as Record<string, unknown>)?.[REQUIRED_SCOPE_EXTENSION];
      if (typeof scope !== 'string') continue;
      const line = `**Required scope:** \`${scope}\``;
      operation.description = operation.description ? `${line}\n\n${operation.description}` : line;
    }
  }
}

/** Writes examples into a copy of the document, per request: what the served document shows instead of the built one. */
export type DocumentExamples = (document: OpenAPIObject) => Promise<OpenAPIObject>;

const examplesOf = new WeakMap<INestApplication, DocumentExamples>();

/**
 * From now on /docs and /docs-json serve the document with these examples (the embedded demo's
 * ids: src/bootstrap/demo-examples.ts); without, the document stays generic.
 */
export function serveDocumentWithExamples(app: INestApplication, examples: DocumentExamples): void {
  examplesOf.set(app, examples);
}

export function setupSwagger(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    // Swagger UI's page loads the document with its init script, so each load of the page gets examples of its own.
    patchDocumentOnRequest: (_request, _response, document) => examplesOf.get(app)?.(document) ?? document,
    customSiteTitle: 'Workspace Administration API',
    // Keeps the pasted key across page reloads, and lets an operation be linked to (#/Tag/operationId).
    swaggerOptions: { persistAuthorization: true, deepLinking: true },
  });
}
