import { TextField } from '../../../common/validation/fields';

export class CreateUserDto {
  @TextField({
    presence: 'required',
    maxLength: 255,
    trim: true,
    notBlank: true,
    description: 'Name of the user, at most 255 characters (code points), unique in the organization. Surrounding white space is trimmed; the rest may not be blank.',
    example: 'First user',
  })
  user_name: string;
}
