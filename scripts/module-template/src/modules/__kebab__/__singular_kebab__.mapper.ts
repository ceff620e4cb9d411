import type { __Singular__Dto } from './dto/__singular_kebab__.dto';

/** The columns a statement of __Plural__Service selects. */
export interface __Singular__Row {
  id: string;
  name: string;
  /** Creation sequence number: the key lists are ordered by. */
  seq: bigint;
  createdAt: Date;
}

export function to__Singular__Dto(row: __Singular__Row): __Singular__Dto {
  return {
    __singular_snake___id: row.id,
    name: row.name,
    created_at: row.createdAt.toISOString(),
  };
}
