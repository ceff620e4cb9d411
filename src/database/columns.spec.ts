import { readFileSync } from 'node:fs';
import type { Department } from '../generated/prisma/client';
import { columnName, columns } from './columns';

interface RuntimeField {
  name: string;
  kind: string;
  dbName?: string | null;
}

/** The generated client's data model: each model's fields, with the column a field's @map gives it. */
function generatedDataModel(): Record<string, RuntimeField[]> {
  const source = readFileSync(require.resolve('../generated/prisma/internal/class'), 'utf8');
  const json = /config\.runtimeDataModel = JSON\.parse\(("(?:[^"\\]|\\.)*")\)/.exec(source);
  if (!json) throw new Error('The generated client no longer carries its runtime data model where this test reads it');
  const { models } = JSON.parse(JSON.parse(json[1])) as { models: Record<string, { fields: RuntimeField[] }> };
  return Object.fromEntries(Object.entries(models).map(([name, model]) => [name, model.fields]));
}

describe('columns', () => {
  it('selects snake_case columns under their field names, quoted, from an aliased table when asked', () => {
    expect(columns<Department>()('id', 'externalId', 'order').sql.text).toBe('"id", "external_id" AS "externalId", "order"');
    expect(columns<Department>('d')('parentId').sql.text).toBe('d."parent_id" AS "parentId"');
  });

  it("names every scalar field's column as the schema maps it", () => {
    const models = generatedDataModel();
    expect(Object.keys(models)).toContain('Department');
    const mismatches = Object.entries(models).flatMap(([model, fields]) =>
      fields.filter((field) => field.kind === 'scalar' && columnName(field.name) !== (field.dbName ?? field.name)).map((field) => `${model}.${field.name}`),
    );
    expect(mismatches).toEqual([]);
  });
});
