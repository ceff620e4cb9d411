import { IntegerField, TextField } from '../../../common/validation/fields';

/** Body of PATCH /users/{user_id}: every field is optional, one left out keeps its stored value. */
export class UpdateUserDto {
  @IntegerField({
    min: 1,
    description:
      'Revision obtained when the user was last read. When it differs from the stored revision the update is ' +
      'refused with 409 REVISION_CONFLICT (details.suggestion = the current revision) and nothing changes. ' +
      'Left out: the update applies to whatever is stored.',
  })
  expected_revision?: number;

  @TextField({
    maxLength: 255,
    trim: true,
    notBlank: true,
    description: 'New name, at most 255 characters (code points), unique in the organization. Surrounding white space is trimmed; the rest may not be blank.',
    example: 'Renamed user',
  })
  user_name?: string;
}
