import { applyDecorators, type Type } from '@nestjs/common';
import { ApiBody, ApiExtraModels, getSchemaPath } from '@nestjs/swagger';

export interface BodyExample {
  summary: string;
  description?: string;
  value: object;
}

/**
 * Documents a JSON request body by its DTO with named examples. Swagger UI prefills "Try it out"
 * with the first example, so the first must succeed for any organization (it names no id of
 * another organization's data); the others show more of the body and are sent only when chosen.
 * Without examples Swagger UI would prefill every optional field with generated filler.
 */
export function ApiJsonBody(type: Type<unknown>, examples: Record<string, BodyExample>) {
  return applyDecorators(ApiExtraModels(type), ApiBody({ schema: { $ref: getSchemaPath(type) }, examples }));
}
