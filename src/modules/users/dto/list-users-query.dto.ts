import { PageSize } from '../../../common/pagination/page-size';
import { PageToken } from '../../../common/pagination/page-token-parameter';
import { TextField, UuidField } from '../../../common/validation/fields';
import { QueryBooleanField } from '../../../common/validation/list-and-query-fields';

/** Query of GET /users: every parameter the list reads is declared here (an undeclared one is refused). */
export class ListUsersQueryDto {
  @UuidField({
    description:
      'Only the direct members of this department (a uuid in any case); with recursive=true the members of its whole subtree, each user once. ' +
      'With it the list is ordered by user_id, without it by creation.',
  })
  department_id?: string;

  @QueryBooleanField({ description: '`true`: with department_id, the members of every department below it too. Needs department_id. Default false.' })
  recursive?: boolean;

  @TextField({ maxLength: 255, description: 'Only the user with this user_name, compared by Unicode case folding (a list of zero or one).' })
  user_name?: string;

  @TextField({ maxLength: 254, description: 'Only the users with this email, compared by Unicode case folding.' })
  email?: string;

  @TextField({ maxLength: 512, description: 'Only the user with this external_id, compared exactly (a list of zero or one).' })
  external_id?: string;

  @QueryBooleanField({ description: '`true`: only active users; `false`: only inactive ones.' })
  active?: boolean;

  @PageSize()
  page_size?: number;

  @PageToken('filters')
  page_token?: string;
}

