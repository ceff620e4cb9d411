import { PageSize } from '../../../common/pagination/page-size';
import { PageToken } from '../../../common/pagination/page-token-parameter';
import { EnumField } from '../../../common/validation/fields';

/** Query of GET /departments/{department_id}/members. */
export class ListMembersQueryDto {
  @EnumField({
    values: ['true', 'false'],
    description: '`true`: the members of the department and of every department below it, each user once. Default `false`: its direct members.',
  })
  recursive?: 'true' | 'false';

  @PageSize()
  page_size?: number;

  @PageToken('recursive')
  page_token?: string;
}
