import { ApiProperty } from '@nestjs/swagger';
import { AuditEventDto } from './audit-event.dto';

/** One page of audit events. */
export class AuditEventPageDto {
  @ApiProperty({ type: [AuditEventDto], description: 'Newest first.' })
  items: AuditEventDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as page_token for the next (older) page; null on the last page.' })
  next_page_token: string | null;
}
