import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { BEARER_SCHEME, REQUIRED_SCOPE_EXTENSION } from './common/auth/auth.decorators';

function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Workspace Administration API')
    .setDescription(
      'Departments, expert suites and the metering policy of an organization. Every call is made with an ' +
        'application API key (`Authorization: Bearer <key>`) holding the scope the operation names; every failure ' +
        'returns the error body `{code, error, detail, details?}`.',
    )
    .setVersion('v1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Application API key (wsk_...)' }, BEARER_SCHEME)
    .build();
  const document = SwaggerModule.createDocument(app, config);
  describeRequiredScopes(document);
  return document;
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

export function setupSwagger(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    customSiteTitle: 'Workspace Administration API',
    // Keeps the pasted key across page reloads, and lets an operation be linked to (#/Tag/operationId).
    swaggerOptions: { persistAuthorization: true, deepLinking: true },
  });
}
