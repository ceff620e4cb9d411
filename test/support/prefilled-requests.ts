import request from 'supertest';

export interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  example?: unknown;
}

export interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { examples?: Record<string, { value: unknown }> }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

/** What Swagger UI sends when "Execute" is pressed on an untouched form: the document's examples. */
export interface PrefilledRequest {
  label: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

// Its body is a file: a form field an OpenAPI document cannot prefill (the browser test attaches one).
export const NEEDS_A_FILE = new Set(['createUpload']);

export function prefilledRequests(document: OpenApiDocument): PrefilledRequest[] {
  return Object.entries(document.paths).flatMap(([template, pathItem]) =>
    Object.entries(pathItem)
      .filter(([, operation]) => !NEEDS_A_FILE.has(operation.operationId))
      .map(([method, operation]) => {
        const parameters = operation.parameters ?? [];
        const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => String(parameters.find((parameter) => parameter.name === name)?.example ?? `{${name}}`));
        const headers = Object.fromEntries(
          parameters.filter((parameter) => parameter.in === 'header' && parameter.example !== undefined).map((parameter) => [parameter.name, String(parameter.example)]),
        );
        // Swagger UI sends the first media type the operation takes, with its first example.
        const [mediaType, media] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
        const examples = media?.examples;
        if (examples) headers['Content-Type'] = mediaType;
        return { label: `${method.toUpperCase()} ${template}`, method, path, headers, body: examples ? Object.values(examples)[0].value : undefined };
      }),
  );
}

/**
 * The status a change's second press answers when it cannot be 2xx, as the operation's description
 * says: a delete's row is gone (404); a SCIM create has no Idempotency-Key, so its name is taken (409).
 */
export function secondPressStatus(method: string, template: string): number | undefined {
  if (method === 'delete') return 404;
  if (method === 'post' && template.startsWith('/scim/v2/')) return 409;
  return undefined;
}

/** Sends the request as Swagger UI would, with the key: to a running service at `baseUrl`. */
export function sendPrefilled(baseUrl: string, apiKey: string, prefilled: PrefilledRequest) {
  const call = request(baseUrl)[prefilled.method as 'get'](prefilled.path).set('Authorization', `Bearer ${apiKey}`).set(prefilled.headers);
  return prefilled.body === undefined ? call : call.send(prefilled.body as object);
}
