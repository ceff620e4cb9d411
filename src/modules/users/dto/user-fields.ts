import { applyDecorators } from '@nestjs/common';
import { IsEmail } from 'class-validator';
import { BooleanField, TextField, UuidField, type Presence } from '../../../common/validation/fields';
import { UuidListField } from '../../../common/validation/list-and-query-fields';

/** At most this many departments per user (CONTRACT.md section 11). */
export const MAX_DEPARTMENTS_PER_USER = 50;

/**
 * The email rule: validator.js isEmail (through class-validator's IsEmail), kept up to date with
 * class-validator. An addr-spec only: a display name (`Ann <ann@example.com>`) is refused; a UTF-8
 * local part and an IP-literal domain are addr-specs too; a domain need not have a TLD (internal
 * mail domains exist); the whole is at most 254 characters (RFC 5321's path limit less the brackets).
 */
const EMAIL_RULE = { allow_display_name: false, require_display_name: false, allow_utf8_local_part: true, require_tld: false, allow_ip_domain: true } as const;

// The user's fields, one decorator each, shared by create (presence given there) and PATCH.
export const UserFields = {
  userName: (presence: Presence) =>
    TextField({
      presence,
      maxLength: 255,
      trim: true,
      nfc: true,
      notBlank: true,
      description:
        'Login name, 1 to 255 characters (code points) in Unicode NFC. Surrounding white space is trimmed and the name is stored and ' +
        'returned in NFC; the rest may not be blank. Unique in the organization by Unicode case folding: "Ann", "ANN" and "ann" are one name.',
      example: 'ann.lee',
    }),
  personName: (what: string, example: string) =>
    TextField({
      presence: 'nullable',
      maxLength: 255,
      description: `${what}, at most 255 characters (code points), stored as sent. Null clears it; absent on create: none.`,
      example,
    }),
  email: () =>
    applyDecorators(
      TextField({
        presence: 'nullable',
        maxLength: 254,
        exact: true,
        description:
          'Mail address as an addr-spec (`local@domain`, no display name), at most 254 characters, stored as sent. Not unique: two users may share a mailbox. Null clears it.',
        example: 'ann.lee@example.com',
      }),
      IsEmail(EMAIL_RULE, { message: 'must be an email address (addr-spec)', context: { reason: 'invalid_format' } }),
    ),
  externalId: () =>
    TextField({
      presence: 'nullable',
      maxLength: 512,
      notBlank: true,
      exact: true,
      description:
        'Identifier in the source system, unique within the organization; at most 512 characters (code points). Stored exactly as sent, ' +
        'so it may not be blank or start or end with white space. Null clears it.',
      example: 'emp-1001',
    }),
  active: () => BooleanField({ description: 'Whether the user is active; true when created without it.', example: true }),
  departmentIds: (description: string) =>
    UuidListField({
      maxItems: MAX_DEPARTMENTS_PER_USER,
      description:
        `${description} Distinct ids (any letter case; returned lower-case) of departments of the organization, at most ${MAX_DEPARTMENTS_PER_USER}; ` +
        'an unknown one is 422 DEPARTMENT_NOT_FOUND.',
    }),
  primaryDepartmentId: (description: string) => UuidField({ presence: 'nullable', description }),
};
