import { PageSize } from '../../../common/pagination/page-size';
import { PageToken } from '../../../common/pagination/page-token-parameter';
import { EnumField, UuidField } from '../../../common/validation/fields';
import { SUITE_STATUSES } from '../suite-status';

/** Query of GET /expert-suites: the organization's suites, filtered, page by page. */
export class ListExpertSuitesQueryDto {
  @EnumField({ values: SUITE_STATUSES, description: 'Only suites with this status.' })
  status?: string;

  @UuidField({ description: "Only suites whose market entry has this category (a uuid in any case). Another organization's category matches nothing." })
  category_id?: string;

  @PageSize()
  page_size?: number;

  @PageToken('filters')
  page_token?: string;
}
