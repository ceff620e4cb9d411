import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { Optional } from '../validation/fields';

/**
 * The `page_token` query parameter of a list: the previous page's `next_page_token`, checked
 * against the list's query by `startOfPage` (page-token.ts). `sameAs` names the filters a token
 * is bound to, for the description ("filters", "parent_id").
 */
export function PageToken(sameAs?: string) {
  const binding = sameAs ? `, with the same ${sameAs}` : '';
  return applyDecorators(
    ApiPropertyOptional({ description: `The previous answer's next_page_token${binding}; absent for the first page.` }),
    Optional(),
    IsString(),
  );
}
