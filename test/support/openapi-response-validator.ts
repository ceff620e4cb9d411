import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { OpenAPIObject } from '@nestjs/swagger';
import { errorReplyFormatFor, type ErrorReplyFormat } from '../../src/common/errors/error-reply-format';

/** One answer of the service as it left the server. */
export interface RecordedResponse {
  method: string;
  /** The request target as sent: path and query string. */
  url: string;
  status: number;
  /** Response headers, names in lower case (as `res.getHeaders()` gives them). */
  headers: Record<string, number | string | string[] | undefined>;
  /** How many body bytes the service wrote. */
  bodyLength: number;
  /** The body, kept only when its content type is JSON. */
  jsonBody?: Buffer;
}

/** The schema every error answer has, documented or not (docs/api-conventions.md). */
const ERROR_BODY_POINTER = '/components/schemas/ErrorBodyDto';

type ResponseObject = { content?: Record<string, { schema?: unknown }>; headers?: Record<string, { required?: boolean; schema?: unknown }> };

interface DocumentedOperation {
  method: string;
  template: string;
  pattern: RegExp;
  pointer: string;
  responses: Record<string, ResponseObject>;
}

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const mediaTypeOf = (contentType: unknown) => (typeof contentType === 'string' ? contentType.split(';')[0].trim().toLowerCase() : undefined);
const isJson = (mediaType: string | undefined) => mediaType !== undefined && /^application\/(.+\+)?json$/.test(mediaType);

/** Whether a content type's body is worth keeping for validation (JSON only). */
export function isJsonContentType(contentType: unknown): boolean {
  return isJson(mediaTypeOf(contentType));
}

/**
 * Checks answers against the OpenAPI document the app serves: the status is documented for the
 * operation (method + path template), documented headers are present where required and match
 * their schema, the content type is a documented one, and a JSON body matches its schema. Answers
 * outside the document (unknown routes, the health probes, the test probes) are held only to the
 * error body when they are errors. Each schema is compiled once, on first use.
 */
export class OpenApiResponseValidator {
  private readonly ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, validateSchema: false });
  private readonly operations: DocumentedOperation[];
  private readonly compiled = new Map<string, ValidateFunction>();

  /**
   * `errorBodies`: the paths whose failures have an error body of their own (the app's error reply
   * formats, SCIM's /scim/v2), by path prefix, with their schema's name among the components.
   */
  constructor(
    document: OpenAPIObject,
    private readonly errorBodies: readonly ErrorReplyFormat[] = [],
  ) {
    addFormats(this.ajv);
    // OpenAPI 3.0's own formats.
    this.ajv.addFormat('int32', { type: 'number', validate: (value: number) => Number.isInteger(value) && Math.abs(value) < 2 ** 31 });
    this.ajv.addFormat('int64', { type: 'number', validate: Number.isSafeInteger });
    this.ajv.addFormat('binary', true);
    // The document is added whole, as the root that `#/components/...` references resolve against;
    // its own top-level fields and OpenAPI's `example` are not schema keywords.
    this.ajv.addVocabulary(['example', ...Object.keys(document)]);
    this.ajv.addSchema(forValidation(document), 'openapi');
    this.operations = Object.entries(document.paths)
      .flatMap(([template, pathItem]) =>
        Object.entries(pathItem as Record<string, { responses?: Record<string, ResponseObject> }>)
          .filter(([, operation]) => operation?.responses !== undefined)
          .map(([method, operation]) => ({
            method: method.toUpperCase(),
            template,
            // Express matches paths without regard to case and with an optional trailing slash.
            pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`, 'i'),
            pointer: `/paths/${escapePointer(template)}/${method}`,
            responses: operation.responses!,
          })),
      )
      // Literal paths before templated ones, should both match.
      .sort((a, b) => a.template.split('{').length - b.template.split('{').length);
  }

  /** The documented operation a request reaches, or undefined when it is outside the document. */
  private operationOf(method: string, url: string): DocumentedOperation | undefined {
    const path = url.split('?')[0];
    const wanted = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    return this.operations.find((operation) => operation.method === wanted && operation.pattern.test(path));
  }

  /** What in the answer differs from the document; empty when nothing does. */
  validate(response: RecordedResponse): string[] {
    const operation = this.operationOf(response.method, response.url);
    if (!operation) return response.status >= 400 ? this.bodyProblems(response, this.errorBodyPointer(response.url)) : [];
    const status = String(response.status);
    const key = [status, `${status[0]}XX`, 'default'].find((candidate) => operation.responses[candidate] !== undefined);
    if (key === undefined) return [`status ${status} is not documented for ${operation.method} ${operation.template} (documented: ${Object.keys(operation.responses).join(', ')})`];
    const documented = operation.responses[key];
    const pointer = `${operation.pointer}/responses/${key}`;
    return [...this.headerProblems(response, documented, pointer), ...this.contentProblems(response, documented, pointer)];
  }

  /** The error body of a path outside the document: the API's, or that of the error format whose prefix the path is under. */
  private errorBodyPointer(url: string): string {
    const format = errorReplyFormatFor(this.errorBodies, url.split('?')[0]);
    return format ? `/components/schemas/${format.schemaName}` : ERROR_BODY_POINTER;
  }

  private headerProblems(response: RecordedResponse, documented: ResponseObject, pointer: string): string[] {
    return Object.entries(documented.headers ?? {}).flatMap(([name, header]) => {
      const value = response.headers[name.toLowerCase()];
      if (value === undefined) return header.required ? [`required header ${name} is missing`] : [];
      if (header.schema === undefined) return [];
      const check = this.schemaAt(`${pointer}/headers/${escapePointer(name)}/schema`);
      return check(headerValue(String(value), header.schema)) ? [] : [`header ${name}: ${describeErrors(check.errors)}`];
    });
  }

  private contentProblems(response: RecordedResponse, documented: ResponseObject, pointer: string): string[] {
    if (response.method.toUpperCase() === 'HEAD' || response.status === 304) return [];
    const mediaType = mediaTypeOf(response.headers['content-type']);
    const documentedTypes = Object.keys(documented.content ?? {});
    if (documentedTypes.length === 0) {
      return response.bodyLength === 0 ? [] : [`a body (${mediaType ?? 'no content type'}, ${response.bodyLength} bytes) where the document lists no content`];
    }
    if (mediaType === undefined || !documentedTypes.includes(mediaType)) {
      return [`content type ${mediaType ?? '(none)'} is not documented (documented: ${documentedTypes.join(', ')})`];
    }
    return isJson(mediaType) ? this.bodyProblems(response, `${pointer}/content/${escapePointer(mediaType)}/schema`) : [];
  }

  private bodyProblems(response: RecordedResponse, schemaPointer: string): string[] {
    if (response.method.toUpperCase() === 'HEAD') return [];
    if (!isJsonContentType(response.headers['content-type'])) return [`content type ${mediaTypeOf(response.headers['content-type']) ?? '(none)'} where a JSON error body is expected`];
    let body: unknown;
    try {
      body = JSON.parse(response.jsonBody?.toString('utf8') ?? '');
    } catch {
      return ['the body is not JSON'];
    }
    const check = this.schemaAt(schemaPointer);
    return check(body) ? [] : [`body: ${describeErrors(check.errors)}`];
  }

  private schemaAt(pointer: string): ValidateFunction {
    let check = this.compiled.get(pointer);
    if (!check) {
      check = this.ajv.getSchema(`openapi#${pointer}`);
      if (!check) throw new Error(`The document has no schema at ${pointer}`);
      this.compiled.set(pointer, check);
    }
    return check;
  }
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 5)
    .map((error) => `${error.instancePath || '(root)'} ${error.message}${error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : ''}`)
    .join('; ');
}

/**
 * Two readings for validation, on a copy of the document:
 * - A field the code sends but the document does not name is drift as well: every object schema
 *   that lists its properties is closed.
 * - `nullable: true` admits null whatever else the schema says. OpenAPI 3.0.3 lets it widen only
 *   `type`, so that `{nullable: true, allOf: [{$ref}]}` (what @nestjs/swagger writes for a nullable
 *   object) would refuse null; clients generated from the document (openapi-typescript, Swagger UI)
 *   read it as "or null", and so does this check.
 */
function forValidation<T>(node: T): T {
  if (Array.isArray(node)) return node.map(forValidation) as T;
  if (typeof node !== 'object' || node === null) return node;
  const schema: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) schema[key] = key === 'example' || key === 'examples' ? value : forValidation(value);
  if (typeof schema.properties === 'object' && schema.additionalProperties === undefined) schema.additionalProperties = false;
  if (schema.nullable === true) {
    delete schema.nullable;
    return { anyOf: [{ type: 'null' }, schema] } as T;
  }
  return schema as T;
}

/** A header's text as the value its schema describes: a header documented as a number is sent as its decimal digits. */
function headerValue(text: string, schema: unknown): unknown {
  const type = (schema as { type?: string }).type;
  return (type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
}
