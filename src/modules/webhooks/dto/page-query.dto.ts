import { PageSize } from '../../../common/pagination/page-size';
import { PageToken } from '../../../common/pagination/page-token-parameter';

/** Query of the webhook lists (endpoints, deliveries): every parameter they read. */
export class WebhookPageQueryDto {
  @PageSize()
  page_size?: number;

  @PageToken()
  page_token?: string;
}
