import { Prisma } from '../../../generated/prisma/client';
import { parseScimFilter } from './filter-parser';
import { filterAttributes, scimFilterSql } from './filter-sql';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** A users map as the SCIM users repository would write one, over a table of e-mails. */
const USERS = filterAttributes('urn:ietf:params:scim:schemas:core:2.0:User', {
  id: { type: 'uuid', sql: Prisma.sql`u.id` },
  userName: { type: 'string', sql: Prisma.sql`u.user_name`, caselessKey: Prisma.sql`u.user_name_key` },
  externalId: { type: 'string', caseExact: true, sql: Prisma.sql`u.external_id` },
  displayName: { type: 'string', sql: Prisma.sql`u.display_name` },
  title: { type: 'string', sql: Prisma.sql`u.title` },
  userType: { type: 'string', sql: Prisma.sql`u.user_type` },
  active: { type: 'boolean', sql: Prisma.sql`u.active` },
  'name.familyName': { type: 'string', sql: Prisma.sql`u.family_name` },
  'meta.lastModified': { type: 'dateTime', sql: Prisma.sql`u.updated_at` },
  [`${ENTERPRISE}:employeeNumber`]: { type: 'string', caseExact: true, sql: Prisma.sql`u.employee_number` },
  emails: {
    anyElement: (condition) => Prisma.sql`EXISTS (SELECT FROM user_emails AS e WHERE e.user_id = u.id AND ${condition})`,
    subAttributes: {
      value: { type: 'string', sql: Prisma.sql`e.value` },
      type: { type: 'string', sql: Prisma.sql`e.type` },
      primary: { type: 'boolean', sql: Prisma.sql`e.is_primary` },
    },
  },
});

const EMAILS = (condition: string) => `EXISTS (SELECT FROM user_emails AS e WHERE e.user_id = u.id AND ${condition})`;

function sqlOf(filter: string) {
  const sql = scimFilterSql(filter, USERS);
  return { text: sql.text, values: sql.values };
}


describe('scimFilterSql', () => {
  describe('the examples of RFC 7644 §3.4.2.2', () => {
    it('userName eq "bjensen": the indexed caseless key, compared with the value\'s key', () => {
      expect(sqlOf('userName eq "BJensen"')).toEqual({ text: 'u.user_name_key = $1', values: ['bjensen'] });
    });

    it(`name.familyName co "O'Malley": caseless, its key computed by caseless_key() in SQL`, () => {
      expect(sqlOf(`name.familyName co "O'Malley"`)).toEqual({ text: `caseless_key(u.family_name) LIKE $1 ESCAPE '\\'`, values: ["%o'malley%"] });
    });

    it('userName sw "J"', () => {
      expect(sqlOf('userName sw "J"')).toEqual({ text: `u.user_name_key LIKE $1 ESCAPE '\\'`, values: ['j%'] });
    });

    it('title pr: present and not empty', () => {
      expect(sqlOf('title pr')).toEqual({ text: `(u.title IS NOT NULL AND u.title <> '')`, values: [] });
    });

    it('meta.lastModified gt "2011-05-13T04:42:34Z": the text as sent, cast by the database', () => {
      expect(sqlOf('meta.lastModified gt "2011-05-13T04:42:34Z"')).toEqual({ text: 'u.updated_at > $1::timestamptz', values: ['2011-05-13T04:42:34Z'] });
    });

    it('title pr and userType eq "Employee"', () => {
      expect(sqlOf('title pr and userType eq "Employee"')).toEqual({
        text: `((u.title IS NOT NULL AND u.title <> '') AND caseless_key(u.user_type) = $1)`,
        values: ['employee'],
      });
    });

    it('userType eq "Employee" and (emails co "example.com" or emails.value co "example.org"): `emails` alone compares its values', () => {
      expect(sqlOf('userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")')).toEqual({
        text: `(caseless_key(u.user_type) = $1 AND (${EMAILS(`caseless_key(e.value) LIKE $2 ESCAPE '\\'`)} OR ${EMAILS(`caseless_key(e.value) LIKE $3 ESCAPE '\\'`)}))`,
        values: ['employee', '%example.com%', '%example.org%'],
      });
    });

    it('emails[type eq "work" and value co "@example.com"]: one e-mail meets both', () => {
      expect(sqlOf('emails[type eq "work" and value co "@example.com"]')).toEqual({
        text: EMAILS(`(caseless_key(e.type) = $1 AND caseless_key(e.value) LIKE $2 ESCAPE '\\')`),
        values: ['work', '%@example.com%'],
      });
    });

    it('userType ne "Employee" and not (emails co "example.com")', () => {
      expect(sqlOf('userType ne "Employee" and not (emails co "example.com")')).toEqual({
        text: `(caseless_key(u.user_type) IS DISTINCT FROM $1 AND (${EMAILS(`caseless_key(e.value) LIKE $2 ESCAPE '\\'`)}) IS NOT TRUE)`,
        values: ['employee', '%example.com%'],
      });
    });
  });

  it('reads attribute names in any case, and with the core schema URN', () => {
    const expected = { text: 'u.user_name_key = $1', values: ['bjensen'] };
    expect(sqlOf('USERNAME eq "bjensen"')).toEqual(expected);
    expect(sqlOf('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "bjensen"')).toEqual(expected);
    expect(sqlOf('URN:IETF:PARAMS:SCIM:SCHEMAS:CORE:2.0:USER:username eq "bjensen"')).toEqual(expected);
  });

  it('reads an extension attribute under its schema URN only', () => {
    expect(sqlOf(`${ENTERPRISE}:employeeNumber eq "701984"`)).toEqual({ text: 'u.employee_number = $1', values: ['701984'] });
    expect(() => sqlOf('employeeNumber eq "701984"')).toThrow(expect.objectContaining({ detail: 'The filter names "employeeNumber", an attribute that cannot be filtered on.' }));
  });

  it('compares a caseExact attribute as written (externalId)', () => {
    expect(sqlOf('externalId eq "AbC"')).toEqual({ text: 'u.external_id = $1', values: ['AbC'] });
    expect(sqlOf('externalId ne "AbC"')).toEqual({ text: 'u.external_id IS DISTINCT FROM $1', values: ['AbC'] });
    expect(sqlOf('externalId ew "C"')).toEqual({ text: `u.external_id LIKE $1 ESCAPE '\\'`, values: ['%C'] });
  });

  it('compares caseless strings by Unicode case folding, not by lower-casing', () => {
    expect(sqlOf('userName eq "STRASSE"').values).toEqual(sqlOf('userName eq "Straße"').values);
  });

  it('escapes LIKE wildcards and the escape character in co, sw and ew', () => {
    expect(sqlOf(String.raw`externalId co "100%_a\\b"`).values).toEqual([String.raw`%100\%\_a\\b%`]);
  });

  it('orders strings in code-point order (COLLATE "C") with gt, ge, lt and le', () => {
    expect(sqlOf('userName gt "m"')).toEqual({ text: 'u.user_name_key COLLATE "C" > $1', values: ['m'] });
    expect(sqlOf('externalId le "M"')).toEqual({ text: 'u.external_id COLLATE "C" <= $1', values: ['M'] });
  });

  it('reads eq null as "not present" and ne null as "present"', () => {
    expect(sqlOf('title eq null')).toEqual({ text: `NOT ((u.title IS NOT NULL AND u.title <> ''))`, values: [] });
    expect(sqlOf('active ne null')).toEqual({ text: 'u.active IS NOT NULL', values: [] });
  });

  describe('booleans', () => {
    it('compare with true and false by eq and ne', () => {
      expect(sqlOf('active eq true')).toEqual({ text: 'u.active = $1', values: [true] });
      expect(sqlOf('active ne False')).toEqual({ text: 'u.active IS DISTINCT FROM $1', values: [false] });
    });

    it.each(['active eq "yes"', 'active eq "true"', 'active eq 1'])('refuse another value: %s', (filter) => {
      expect(() => sqlOf(filter)).toThrow(expect.objectContaining({ status: 400, scimType: 'invalidFilter', detail: expect.stringMatching(/^"active" is a boolean: compare it with true or false/) }));
    });

    it.each(['gt', 'ge', 'lt', 'le', 'co', 'sw', 'ew'])('refuse %s', (op) => {
      expect(() => sqlOf(`active ${op} true`)).toThrow(expect.objectContaining({ status: 400, scimType: 'invalidFilter', detail: `"${op}" does not apply to the boolean "active": use eq, ne or pr.` }));
    });
  });

  describe('ids', () => {
    it('compare as uuids, in any case', () => {
      expect(sqlOf('id eq "2819C223-7F76-453A-919D-413861904646"')).toEqual({ text: 'u.id = $1::uuid', values: ['2819c223-7f76-453a-919d-413861904646'] });
    });

    it('match nothing for a text that is no uuid, rather than failing', () => {
      expect(sqlOf('id eq "not-a-uuid"')).toEqual({ text: 'FALSE', values: [] });
      expect(sqlOf('id ne "not-a-uuid"')).toEqual({ text: 'TRUE', values: [] });
    });

    it('compare their text with sw', () => {
      expect(sqlOf('id sw "2819C"')).toEqual({ text: `u.id::text LIKE $1 ESCAPE '\\'`, values: ['2819c%'] });
    });

    it('refuse a value that is no string', () => {
      expect(() => sqlOf('id eq 12')).toThrow(expect.objectContaining({ scimType: 'invalidFilter', detail: '"id" is an id: compare it with a string in double quotes, not 12.' }));
    });
  });

  describe('date-times', () => {
    it('refuse a text that is not a date-time with a time zone', () => {
      for (const value of ['yesterday', '2011-05-13', '2011-05-13T04:42:34', '2011-02-30T00:00:00Z']) {
        expect(() => sqlOf(`meta.lastModified gt "${value}"`)).toThrow(expect.objectContaining({ status: 400, scimType: 'invalidFilter', detail: expect.stringContaining('is a date-time') }));
      }
    });

    it('refuse co, sw and ew', () => {
      expect(() => sqlOf('meta.lastModified co "2011"')).toThrow(expect.objectContaining({ detail: '"co" does not apply to the date-time "meta.lastModified": use eq, ne, gt, ge, lt, le or pr.' }));
    });
  });

  it('refuses a number compared with a string attribute', () => {
    expect(() => sqlOf('userName eq 12')).toThrow(expect.objectContaining({ scimType: 'invalidFilter', detail: '"userName" is a string: compare it with a string in double quotes, not 12.' }));
  });

  it('refuses gt on null', () => {
    expect(() => sqlOf('title gt null')).toThrow(expect.objectContaining({ scimType: 'invalidFilter', detail: '"gt" does not compare with null ("title"): only eq and ne do.' }));
  });

  describe('multi-valued attributes', () => {
    it('emails.type eq "work" and emails.value co "x": each may be met by another e-mail', () => {
      expect(sqlOf('emails.type eq "work" and emails.value co "x"').text).toBe(
        `(${EMAILS('caseless_key(e.type) = $1')} AND ${EMAILS(`caseless_key(e.value) LIKE $2 ESCAPE '\\'`)})`,
      );
    });

    it('emails[type eq "work"].value co "x": one e-mail meets both', () => {
      expect(sqlOf('emails[type eq "work"].value co "x"')).toEqual({
        text: EMAILS(`(caseless_key(e.type) = $1 AND caseless_key(e.value) LIKE $2 ESCAPE '\\')`),
        values: ['work', '%x%'],
      });
    });

    it('emails pr: the user has an e-mail; emails.value pr: one with a value', () => {
      expect(sqlOf('emails pr').text).toBe(EMAILS('TRUE'));
      expect(sqlOf('emails.value pr').text).toBe(EMAILS(`(e.value IS NOT NULL AND e.value <> '')`));
    });

    it('a boolean sub-attribute in a value path: emails[primary eq true]', () => {
      expect(sqlOf('emails[primary eq true and not (type eq "home")]')).toEqual({
        text: EMAILS('(e.is_primary = $1 AND (caseless_key(e.type) = $2) IS NOT TRUE)'),
        values: [true, 'home'],
      });
    });

    it('refuses a sub-attribute the map does not list, naming it', () => {
      expect(() => sqlOf('emails[display eq "x"]')).toThrow(expect.objectContaining({ scimType: 'invalidFilter', detail: 'The filter names "emails.display", an attribute that cannot be filtered on.' }));
      expect(() => sqlOf('emails.display eq "x"')).toThrow(expect.objectContaining({ detail: 'The filter names "emails.display", an attribute that cannot be filtered on.' }));
    });

    it('refuses a value filter on an attribute that is not multi-valued', () => {
      expect(() => sqlOf('title[value eq "x"]')).toThrow(expect.objectContaining({ scimType: 'invalidFilter', detail: '"title" is not a multi-valued attribute: a value filter ("title[…]") does not apply to it.' }));
    });
  });

  it.each(['nickName eq "x"', 'name.givenName eq "x"', 'urn:example:User:userName eq "x"', 'phoneNumbers[type eq "work"]', 'userName.x eq "y"'])(
    'refuses an attribute the map does not list: %s',
    (filter) => {
      const named = filter.split(/[ [(]/)[0];
      expect(() => sqlOf(filter)).toThrow(expect.objectContaining({ status: 400, scimType: 'invalidFilter', detail: `The filter names "${named}", an attribute that cannot be filtered on.` }));
    },
  );

  it('refuses a filter that does not parse: 400 invalidFilter', () => {
    expect(() => sqlOf('userName eq')).toThrow(expect.objectContaining({ status: 400, scimType: 'invalidFilter' }));
  });

  it('takes a filter parsed already, so that a caller can look at it first', () => {
    const filter = parseScimFilter('userName eq "bjensen"');
    expect(scimFilterSql(filter, USERS).text).toBe('u.user_name_key = $1');
  });

  it('never writes a value into the statement text', () => {
    const sql = scimFilterSql(`userName eq "x'; DROP TABLE users; --" or externalId co "'" or meta.lastModified lt "2011-05-13T04:42:34Z"`, USERS);
    expect(sql.text).not.toContain("'; DROP");
    expect(sql.text).not.toContain('2011');
    expect(sql.values).toEqual(["x'; drop table users; --", "%'%", '2011-05-13T04:42:34Z']);
  });
});

describe('filterAttributes', () => {
  it('refuses a path listed twice in different cases', () => {
    expect(() =>
      filterAttributes('urn:x', {
        userName: { type: 'string', sql: Prisma.sql`a` },
        username: { type: 'string', sql: Prisma.sql`b` },
      }),
    ).toThrow('The filter attribute username is listed twice.');
  });
});
