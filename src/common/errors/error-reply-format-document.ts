import type { OpenAPIObject } from '@nestjs/swagger';
import type { OperationObject, ResponseObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { AppError } from './app-error';
import { errorReplyFormatFor, type ErrorReplyFormat } from './error-reply-format';

/**
 * Describes the error answers of the operations under an error format's path (SCIM's /scim/v2)
 * as they are sent: in the format's media type and schema, each example written by the format
 * from the API's example of the same code. Runs after the cross-cutting errors are documented, so
 * that 401, 403, 429, 503 and the rest are converted too.
 */
export function documentErrorReplyFormats(document: OpenAPIObject, formats: readonly ErrorReplyFormat[]): void {
  for (const [path, pathItem] of Object.entries(document.paths)) {
    const format = errorReplyFormatFor(formats, path);
    if (format === undefined) continue;
    for (const operation of Object.values(pathItem) as OperationObject[]) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      for (const [status, response] of Object.entries(operation.responses) as Array<[string, ResponseObject]>) {
        const json = response.content?.['application/json'];
        if (Number(status) < 400 || json === undefined) continue;
        const examples = Object.fromEntries(
          Object.entries(json.examples ?? {}).map(([name, example]) => {
            const { code, detail } = (example as { value: { code: string; detail: string } }).value;
            return [name, { ...example, value: format.reply(new AppError({ code, status: Number(status) }, detail)).body }];
          }),
        );
        response.content = { [format.mediaType]: { schema: { $ref: `#/components/schemas/${format.schemaName}` }, examples } };
      }
    }
  }
}
