import { PageSize } from '../../../common/pagination/page-size';
import { PageToken } from '../../../common/pagination/page-token-parameter';
import { EnumField, TextField, UuidField } from '../../../common/validation/fields';

/** Query of GET /departments: the children of one parent or its whole subtree, page by page, or one department by external_id. */
export class ListDepartmentsQueryDto {
  @UuidField({ description: 'List the children of this department (a uuid in any case); with recursive=true, every department below it. Absent: the top-level departments (recursive: the whole tree).' })
  parent_id?: string;

  @EnumField({
    values: ['true', 'false'],
    description:
      '`true`: every department below parent_id at any depth (the whole tree without parent_id), each before its ' +
      'descendants, ordered by its position in the tree. `false` or absent: the direct children only. Cannot be combined with external_id.',
  })
  recursive?: 'true' | 'false';

  @TextField({
    maxLength: 512,
    description:
      'Find the department with this source-system id (e.g. `hr-4711`) anywhere in the tree: a list of zero or one. ' +
      'Cannot be combined with parent_id, recursive or page_token.',
  })
  external_id?: string;

  @PageSize()
  page_size?: number;

  @PageToken('parent_id and recursive')
  page_token?: string;
}
