import { TextField } from '../../../common/validation/fields';

export class Create__Singular__Dto {
  @TextField({
    presence: 'required',
    maxLength: 255,
    trim: true,
    notBlank: true,
    description: 'Name of the __singular_words__, at most 255 characters (code points), unique in the organization. Surrounding white space is trimmed; the rest may not be blank.',
    example: 'First __singular_words__',
  })
  name: string;
}
