import { ApiProperty } from '@nestjs/swagger';
import { UserDto } from './user.dto';

/** One page of a department's members, each as GET /users/{user_id} answers it. */
export class MemberPageDto {
  @ApiProperty({ type: [UserDto], description: 'Ordered by user_id; with recursive=true each user once.' })
  items: UserDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as page_token (with the same recursive) for the next page; null on the last page.' })
  next_page_token: string | null;
}
