import { UserFields } from './user-fields';

// Fields are declared in the documented order, which is the order validation reports the first failure in.
export class CreateUserDto {
  @UserFields.userName('required')
  user_name: string;

  @UserFields.personName('Name shown for the user', 'Ann Lee')
  display_name?: string | null;

  @UserFields.personName('Given name', 'Ann')
  given_name?: string | null;

  @UserFields.personName('Family name', 'Lee')
  family_name?: string | null;

  @UserFields.email()
  email?: string | null;

  @UserFields.externalId()
  external_id?: string | null;

  @UserFields.active()
  active?: boolean;

  @UserFields.departmentIds('The departments the user belongs to, in this order (absent: none).')
  department_ids?: string[];

  @UserFields.primaryDepartmentId(
    'One of department_ids (else 400 `conflicting_fields`); absent: the first of them. Null only with no department_ids.',
  )
  primary_department_id?: string | null;
}
