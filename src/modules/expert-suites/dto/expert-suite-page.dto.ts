import { ApiProperty } from '@nestjs/swagger';
import { ExpertSuiteDto } from './expert-suite.dto';

/** One page of expert suites. */
export class ExpertSuitePageDto {
  @ApiProperty({ type: [ExpertSuiteDto], description: 'Ordered by created_at, then id.' })
  items: ExpertSuiteDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as page_token (with the same filters) for the next page; null on the last page.' })
  next_page_token: string | null;
}
