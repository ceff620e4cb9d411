import { ApiProperty } from '@nestjs/swagger';
import { UserDto } from './user.dto';

/** One page of users. */
export class UserPageDto {
  @ApiProperty({ type: [UserDto], description: 'Ordered by creation; with department_id, by user_id.' })
  items: UserDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as page_token for the next page; null on the last page.' })
  next_page_token: string | null;
}
