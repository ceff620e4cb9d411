import { ExpectedRevisionField, IntegerField, TextField, UuidField } from '../../../common/validation/fields';

/** Body of PATCH /departments/{department_id}: every field is optional, one left out keeps its stored value. */
export class UpdateDepartmentDto {
  @ExpectedRevisionField('department')
  expected_revision?: number;

  @TextField({
    presence: 'nullable',
    maxLength: 512,
    notBlank: true,
    exact: true,
    description:
      'New identifier in the source system, unique within the organization; at most 512 characters (code points), ' +
      'stored exactly as sent. null clears it.',
    example: 'hr-4711',
  })
  external_id?: string | null;

  @TextField({
    maxLength: 255,
    trim: true,
    nfc: true,
    notBlank: true,
    description:
      'New name, at most 255 characters (code points), trimmed and stored in NFC; unique among the siblings (the new ' +
      'siblings when parent_id moves it) by Unicode case folding.',
    example: 'Research and Development',
  })
  name?: string;

  @IntegerField({
    min: 0,
    description:
      'New sort value among its siblings (siblings may tie: lists order by order, then department_id). Left out on a ' +
      'move: the next order among the new siblings.',
  })
  order?: number;

  @UuidField({
    presence: 'nullable',
    description:
      'Moves the department, with its whole subtree, under this department of the organization; null: to the top ' +
      'level. Its own id or one of its descendants is 409 DEPARTMENT_CYCLE; past 32 levels, 422 DEPARTMENT_TOO_DEEP.',
  })
  parent_id?: string | null;
}
