import { ExpectedRevisionField, TextField } from '../../../common/validation/fields';

/** Body of PATCH /__kebab__/{__singular_snake___id}: every field is optional, one left out keeps its stored value. */
export class Update__Singular__Dto {
  @ExpectedRevisionField('__singular_words__')
  expected_revision?: number;

  @TextField({
    maxLength: 255,
    trim: true,
    notBlank: true,
    description: 'New name, at most 255 characters (code points), unique in the organization. Surrounding white space is trimmed; the rest may not be blank.',
    example: 'Renamed __singular_words__',
  })
  name?: string;
}
