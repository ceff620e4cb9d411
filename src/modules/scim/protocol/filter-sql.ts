import { caselessKey } from '../../../common/text/caseless-key';
import { readDateTime } from '../../../common/validation/date-time';
import { lowerCaseUuid } from '../../../common/validation/string-rules';
import { Prisma } from '../../../generated/prisma/client';
import { parseScimFilter, type AttributePath, type CompareOperator, type CompareValue, type ScimFilter } from './filter-parser';
import { badScimRequest } from './scim-error';

export type FilterValueType = 'string' | 'boolean' | 'dateTime' | 'uuid';

/** A single value a filter may compare: a column (or expression) of the resource's row, or of an element's row. */
export interface FilterColumn {
  type: FilterValueType;
  sql: Prisma.Sql;
  /** Strings: compared exactly (RFC 7643 caseExact). Otherwise they compare by caseless key (src/common/text/caseless-key.ts). */
  caseExact?: boolean;
  /** Strings that are not caseExact: an indexed expression equal to caseless_key(sql), such as users.user_name_key. */
  caselessKey?: Prisma.Sql;
}

/** A multi-valued attribute (emails, members): its elements are rows a subquery reaches. */
export interface FilterElements {
  /** `EXISTS (SELECT … WHERE <the element belongs to the resource> AND condition)`. */
  anyElement: (condition: Prisma.Sql) => Prisma.Sql;
  /** By sub-attribute name (`value`, `type`); their sql names the element's row. */
  subAttributes: Readonly<Record<string, FilterColumn>>;
}

/** What one resource type lets a filter name, keys lower-cased: build it with filterAttributes. */
export interface FilterAttributeMap {
  /** Lower-case; a path qualified with it is the unqualified path. */
  readonly coreSchema: string;
  readonly columns: ReadonlyMap<string, FilterColumn>;
  readonly elements: ReadonlyMap<string, { anyElement: FilterElements['anyElement']; subAttributes: ReadonlyMap<string, FilterColumn> }>;
}

/**
 * The attribute map of a resource type. Keys are paths in any case: `userName`, `name.givenName`,
 * `meta.created`, an extension's `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber`
 * (a FilterColumn each); or a multi-valued attribute's name, `emails`, `members` (FilterElements).
 */
export function filterAttributes(coreSchema: string, attributes: Readonly<Record<string, FilterColumn | FilterElements>>): FilterAttributeMap {
  const columns = new Map<string, FilterColumn>();
  const elements = new Map<string, { anyElement: FilterElements['anyElement']; subAttributes: ReadonlyMap<string, FilterColumn> }>();
  for (const [path, attribute] of Object.entries(attributes)) {
    const key = path.toLowerCase();
    if (columns.has(key) || elements.has(key)) throw new Error(`The filter attribute ${path} is listed twice.`);
    if ('anyElement' in attribute) {
      elements.set(key, { anyElement: attribute.anyElement, subAttributes: new Map(Object.entries(attribute.subAttributes).map(([name, column]) => [name.toLowerCase(), column])) });
    } else {
      columns.set(key, attribute);
    }
  }
  return { coreSchema: coreSchema.toLowerCase(), columns, elements };
}

/**
 * The WHERE condition of a SCIM filter (RFC 7644 §3.4.2.2), its values bound as parameters; 400
 * invalidFilter for a filter that does not parse, names an attribute the map lacks, or compares a
 * value of the wrong type.
 *
 * Absent and null are one state (RFC 7643 §2.5): `ne` and `not` match a resource without the
 * attribute (`title ne "x"` is true of a user with no title), `eq null` is "not present". On a
 * multi-valued attribute a condition holds when some element meets it.
 */
export function scimFilterSql(filter: string | ScimFilter, attributes: FilterAttributeMap): Prisma.Sql {
  return translate(typeof filter === 'string' ? parseScimFilter(filter) : filter, resourceScope(attributes));
}

/** How the paths of one level of a filter resolve: the resource's attributes, or inside a value path an element's. */
interface Scope {
  /** The column `path` names, and the condition on it as the resource sees it (inside an EXISTS for an element's). */
  column(path: AttributePath): { column: FilterColumn; within: (condition: Prisma.Sql) => Prisma.Sql };
  /** `emails` in `emails pr`: whether the resource has any element. */
  presentElements(path: AttributePath): Prisma.Sql | undefined;
  elementScope(path: AttributePath): { scope: Scope; anyElement: FilterElements['anyElement'] };
}

function translate(filter: ScimFilter, scope: Scope): Prisma.Sql {
  switch (filter.op) {
    case 'and':
    case 'or':
      return Prisma.join(
        filter.filters.map((part) => translate(part, scope)),
        filter.op === 'and' ? ' AND ' : ' OR ',
        '(',
        ')',
      );
    case 'not':
      // IS NOT TRUE, not NOT: a comparison with an absent value is NULL in SQL, and false in SCIM.
      return Prisma.sql`(${translate(filter.filter, scope)}) IS NOT TRUE`;
    case 'valuePath': {
      const { scope: elementScope, anyElement } = scope.elementScope(filter.path);
      return anyElement(translate(filter.filter, elementScope));
    }
    case 'pr': {
      const anyElement = scope.presentElements(filter.path);
      if (anyElement !== undefined) return anyElement;
      const { column, within } = scope.column(filter.path);
      return within(present(column));
    }
    default: {
      const { column, within } = scope.column(filter.path);
      return within(comparison(column, filter.op, filter.value, filter.path.text));
    }
  }
}

function resourceScope(attributes: FilterAttributeMap): Scope {
  const keyOf = (path: AttributePath) => {
    const uri = path.uri?.toLowerCase();
    return `${uri === undefined || uri === attributes.coreSchema ? '' : `${uri}:`}${path.name.toLowerCase()}`;
  };
  const elementsOf = (path: AttributePath) => attributes.elements.get(keyOf(path));
  return {
    column(path) {
      const key = keyOf(path);
      const column = attributes.columns.get(path.subAttribute === undefined ? key : `${key}.${path.subAttribute.toLowerCase()}`);
      if (column !== undefined) return { column, within: (condition) => condition };
      const elements = elementsOf(path);
      // `emails co "x"` compares the elements' values (RFC 7644 §3.4.2.2's `emails co "example.com"`).
      const subAttribute = elements?.subAttributes.get(path.subAttribute?.toLowerCase() ?? 'value');
      if (elements === undefined || subAttribute === undefined) throw notFilterable(path.text);
      return { column: subAttribute, within: elements.anyElement };
    },
    presentElements(path) {
      return path.subAttribute === undefined ? elementsOf(path)?.anyElement(Prisma.sql`TRUE`) : undefined;
    },
    elementScope(path) {
      const elements = path.subAttribute === undefined ? elementsOf(path) : undefined;
      if (elements === undefined) {
        if (attributes.columns.has(keyOf(path))) throw badScimRequest('invalidFilter', `"${path.text}" is not a multi-valued attribute: a value filter ("${path.text}[…]") does not apply to it.`);
        throw notFilterable(path.text);
      }
      return { scope: elementScope(path.text, elements.subAttributes), anyElement: elements.anyElement };
    },
  };
}

function elementScope(outer: string, subAttributes: ReadonlyMap<string, FilterColumn>): Scope {
  return {
    column(path) {
      const column = path.uri === undefined && path.subAttribute === undefined ? subAttributes.get(path.name.toLowerCase()) : undefined;
      if (column === undefined) throw notFilterable(`${outer}.${path.text}`);
      return { column, within: (condition) => condition };
    },
    presentElements: () => undefined,
    // The parser refuses nested value paths; a scope is asked only for what the parser lets through.
    elementScope(path) {
      throw notFilterable(`${outer}.${path.text}`);
    },
  };
}

const notFilterable = (path: string) => badScimRequest('invalidFilter', `The filter names "${path}", an attribute that cannot be filtered on.`);

function present(column: FilterColumn): Prisma.Sql {
  // RFC 7644: "pr" holds for a non-empty value; an empty string is as good as none.
  return column.type === 'string' ? Prisma.sql`(${column.sql} IS NOT NULL AND ${column.sql} <> '')` : Prisma.sql`${column.sql} IS NOT NULL`;
}

function comparison(column: FilterColumn, op: CompareOperator, value: CompareValue, path: string): Prisma.Sql {
  if (value === null) {
    if (op === 'eq') return Prisma.sql`NOT (${present(column)})`;
    if (op === 'ne') return present(column);
    throw badScimRequest('invalidFilter', `"${op}" does not compare with null ("${path}"): only eq and ne do.`);
  }
  switch (column.type) {
    case 'string':
      return stringComparison(column, op, stringValue(value, path, 'a string'));
    case 'uuid':
      return uuidComparison(column, op, stringValue(value, path, 'an id'));
    case 'boolean':
      return booleanComparison(column, op, value, path);
    case 'dateTime':
      return dateTimeComparison(column, op, stringValue(value, path, 'a date-time'), path);
  }
}

function stringValue(value: CompareValue, path: string, kind: string): string {
  if (typeof value !== 'string') throw badScimRequest('invalidFilter', `"${path}" is ${kind}: compare it with a string in double quotes, not ${JSON.stringify(value)}.`);
  return value;
}

function stringComparison(column: FilterColumn, op: CompareOperator, value: string): Prisma.Sql {
  if (column.caseExact === true) return textComparison(column.sql, op, value);
  return textComparison(column.caselessKey ?? Prisma.sql`caseless_key(${column.sql})`, op, caselessKey(value));
}

const LIKE_WILDCARD = /[\\%_]/g;
const likeLiteral = (text: string) => text.replace(LIKE_WILDCARD, '\\$&');

const ORDERING: Readonly<Record<'gt' | 'ge' | 'lt' | 'le', Prisma.Sql>> = {
  gt: Prisma.raw('>'),
  ge: Prisma.raw('>='),
  lt: Prisma.raw('<'),
  le: Prisma.raw('<='),
};

function textComparison(target: Prisma.Sql, op: CompareOperator, operand: string): Prisma.Sql {
  switch (op) {
    case 'eq':
      return Prisma.sql`${target} = ${operand}`;
    case 'ne':
      return Prisma.sql`${target} IS DISTINCT FROM ${operand}`;
    case 'co':
      return Prisma.sql`${target} LIKE ${`%${likeLiteral(operand)}%`} ESCAPE '\\'`;
    case 'sw':
      return Prisma.sql`${target} LIKE ${`${likeLiteral(operand)}%`} ESCAPE '\\'`;
    case 'ew':
      return Prisma.sql`${target} LIKE ${`%${likeLiteral(operand)}`} ESCAPE '\\'`;
    default:
      // Code-point order, the same on every database whatever its collation.
      return Prisma.sql`${target} COLLATE "C" ${ORDERING[op]} ${operand}`;
  }
}

function uuidComparison(column: FilterColumn, op: CompareOperator, value: string): Prisma.Sql {
  if (op === 'eq' || op === 'ne') {
    const id = lowerCaseUuid(value);
    // A text that is no uuid is the id of no resource: `id eq "x"` matches nothing rather than
    // failing, as a provider that looks a resource up by another system's id expects.
    if (id === undefined) return op === 'eq' ? Prisma.sql`FALSE` : Prisma.sql`TRUE`;
    return op === 'eq' ? Prisma.sql`${column.sql} = ${id}::uuid` : Prisma.sql`${column.sql} IS DISTINCT FROM ${id}::uuid`;
  }
  // An id is a string to the client: co, sw, ew and the orderings apply to its lower-case text.
  return textComparison(Prisma.sql`${column.sql}::text`, op, value.toLowerCase());
}

function booleanComparison(column: FilterColumn, op: CompareOperator, value: CompareValue, path: string): Prisma.Sql {
  if (op !== 'eq' && op !== 'ne') throw badScimRequest('invalidFilter', `"${op}" does not apply to the boolean "${path}": use eq, ne or pr.`);
  if (typeof value !== 'boolean') throw badScimRequest('invalidFilter', `"${path}" is a boolean: compare it with true or false, not ${JSON.stringify(value)}.`);
  return op === 'eq' ? Prisma.sql`${column.sql} = ${value}` : Prisma.sql`${column.sql} IS DISTINCT FROM ${value}`;
}

function dateTimeComparison(column: FilterColumn, op: CompareOperator, value: string, path: string): Prisma.Sql {
  if (op === 'co' || op === 'sw' || op === 'ew') throw badScimRequest('invalidFilter', `"${op}" does not apply to the date-time "${path}": use eq, ne, gt, ge, lt, le or pr.`);
  // Any real instant will do here (readDateTime's range is the one the service stores).
  const read = readDateTime(value);
  if (!(read instanceof Date) && read.reason === 'invalid_format') {
    throw badScimRequest('invalidFilter', `"${path}" is a date-time: compare it with a date-time with a time zone, such as "2011-05-13T04:42:34Z", not ${JSON.stringify(value)}.`);
  }
  // The text as sent, so that the database compares all its fraction digits.
  const instant = Prisma.sql`${value}::timestamptz`;
  if (op === 'eq') return Prisma.sql`${column.sql} = ${instant}`;
  if (op === 'ne') return Prisma.sql`${column.sql} IS DISTINCT FROM ${instant}`;
  return Prisma.sql`${column.sql} ${ORDERING[op]} ${instant}`;
}
