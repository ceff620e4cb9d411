import { TextField, UuidField } from '../../../common/validation/fields';

// Fields are declared in the documented order, which is the order validation reports the first failure in.
export class CreateDepartmentDto {
  @TextField({
    presence: 'nullable',
    maxLength: 512,
    notBlank: true,
    exact: true,
    description:
      'Identifier in the source system, unique within the organization; at most 512 characters (code points). ' +
      'Stored exactly as sent, so it may not be blank or start or end with white space. Null or absent: none.',
    example: 'hr-4711',
  })
  external_id?: string | null;

  @TextField({
    presence: 'required',
    maxLength: 255,
    trim: true,
    nfc: true,
    notBlank: true,
    description:
      'Department name, at most 255 characters (code points) in Unicode NFC. Surrounding white space is trimmed and the ' +
      'name is stored and returned in NFC; the rest may not be blank. Unique among its siblings by Unicode case folding: ' +
      '"Café", "CAFÉ" and "Cafe\u0301" are the same name, and so are "Straße" and "STRASSE".',
    example: 'Research',
  })
  name: string;

  @UuidField({
    presence: 'nullable',
    description: 'Parent department of the same organization (a uuid in any case; stored and returned lower-case); null or absent: a top-level department.',
  })
  parent_id?: string | null;
}
