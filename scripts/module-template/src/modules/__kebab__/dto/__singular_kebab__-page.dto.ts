import { ApiProperty } from '@nestjs/swagger';
import { __Singular__Dto } from './__singular_kebab__.dto';

/** One page of __words__. */
export class __Singular__PageDto {
  @ApiProperty({ type: [__Singular__Dto], description: 'In the order they were created.' })
  items: __Singular__Dto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as page_token for the next page; null on the last page.' })
  next_page_token: string | null;
}
