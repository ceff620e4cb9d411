import { ExpectedRevisionField } from '../../../common/validation/fields';
import { UserFields } from './user-fields';

/** Body of PATCH /users/{user_id}: every field is optional, one left out keeps its stored value. */
export class UpdateUserDto {
  @ExpectedRevisionField('user')
  expected_revision?: number;

  @UserFields.userName('optional')
  user_name?: string;

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

  @UserFields.departmentIds(
    'Replaces the whole set of memberships: departments kept keep their place, new ones follow in this order, the others are left.',
  )
  department_ids?: string[];

  @UserFields.primaryDepartmentId(
    'One of the user\'s departments after this change (of department_ids when sent: else 400 `conflicting_fields`; of the stored ones otherwise: ' +
      'else 422 PRIMARY_DEPARTMENT_NOT_MEMBER). Absent: kept while it stays a membership, else the earliest-added remaining one. Null only when no membership remains.',
  )
  primary_department_id?: string | null;
}
