import { ApiProperty } from '@nestjs/swagger';
import { MemberDto } from './member.dto';

/** One page of a department's members. */
export class MemberPageDto {
  @ApiProperty({ type: [MemberDto], description: 'Ordered by user_id; with recursive=true each user once.' })
  items: MemberDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as page_token (with the same recursive) for the next page; null on the last page.' })
  next_page_token: string | null;
}
