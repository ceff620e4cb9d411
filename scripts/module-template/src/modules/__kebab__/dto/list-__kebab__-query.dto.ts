import { PageSize } from '../../../common/pagination/page-size';
import { PageToken } from '../../../common/pagination/page-token-parameter';

/** Query of GET /__kebab__: every parameter the list reads is declared here (an undeclared one is refused). */
export class List__Plural__QueryDto {
  @PageSize()
  page_size?: number;

  @PageToken()
  page_token?: string;
}
