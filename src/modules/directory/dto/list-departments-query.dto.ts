import { PageSize } from '../../../common/pagination/page-size';
import { PageToken } from '../../../common/pagination/page-token-parameter';
import { TextField, UuidField } from '../../../common/validation/fields';

/** Query of GET /departments: the children of one parent, page by page, or one department by external_id. */
export class ListDepartmentsQueryDto {
  @UuidField({ description: 'List the children of this department (a uuid in any case). Absent: the top-level departments.' })
  parent_id?: string;

  @TextField({
    maxLength: 512,
    description:
      'Find the department with this source-system id (e.g. `hr-4711`) anywhere in the tree: a list of zero or one. ' +
      'Cannot be combined with parent_id or page_token.',
  })
  external_id?: string;

  @PageSize()
  page_size?: number;

  @PageToken('parent_id')
  page_token?: string;
}
