import { PageSize } from '../../../common/pagination/page-size';
import { PageToken } from '../../../common/pagination/page-token-parameter';

/** Query of GET /users: every parameter the list reads is declared here (an undeclared one is refused). */
export class ListUsersQueryDto {
  @PageSize()
  page_size?: number;

  @PageToken()
  page_token?: string;
}
