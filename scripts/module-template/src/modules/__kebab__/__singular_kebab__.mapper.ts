import type { __Singular__Dto } from './dto/__singular_kebab__.dto';
import type { __Singular__Row } from './__kebab__.repository';

export function to__Singular__Dto(row: __Singular__Row): __Singular__Dto {
  return {
    __singular_snake___id: row.id,
    name: row.name,
    // Revisions count up from 1 by one per change, far below 2^53: a JSON number loses nothing.
    revision: Number(row.revision),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
