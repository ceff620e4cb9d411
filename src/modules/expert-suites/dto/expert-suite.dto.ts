import { ApiProperty } from '@nestjs/swagger';

export class ConnectorRefDto {
  @ApiProperty({ description: 'Identifier of the referenced connector.' })
  connector_id: string;
  @ApiProperty({ description: 'Origin of the referenced connector.' })
  connector_origin: string;
  @ApiProperty({ type: Boolean, description: 'Whether the connector is a required dependency of the suite.' })
  required: boolean;
}

/** An expert suite as the API returns it, with category_id and market_item_revision (docs/expert-suites.md). */
export class ExpertSuiteDto {
  @ApiProperty({ format: 'uuid', description: 'Unique identifier of the record.' })
  id: string;
  @ApiProperty({ description: 'Name identifying the object.' })
  name: string;
  @ApiProperty({ description: 'Name shown externally.' })
  display_name: string;
  @ApiProperty({ description: 'Chinese display name.' })
  display_name_cn: string;
  @ApiProperty({ description: 'Description of the object.' })
  description: string;
  @ApiProperty({ description: 'Chinese description.' })
  description_cn: string;
  @ApiProperty({ description: 'Version identifier of the resource package.' })
  version: string;
  @ApiProperty({ enum: ['draft', 'published', 'disabled'], description: 'Current state of the record.' })
  status: string;
  @ApiProperty({ enum: ['official', 'enterprise'], description: 'Origin type of the resource, distinguishing ownership.' })
  origin: string;
  @ApiProperty({ enum: ['official'], description: 'Specific source type.' })
  source_type: string;
  @ApiProperty({ type: [String], nullable: true, description: 'Client types allowed to use the resource; null means every client type.' })
  clients: string[] | null;
  @ApiProperty({ type: 'integer', format: 'int64', description: 'Number of commands in the suite.' })
  command_count: number;
  @ApiProperty({ type: 'array', items: { type: 'object' }, nullable: true, description: 'Command contents of the suite.' })
  commands: object[] | null;
  @ApiProperty({ type: 'integer', format: 'int64', description: 'Number of skills in the suite.' })
  skill_count: number;
  @ApiProperty({ type: 'array', items: { type: 'object' }, nullable: true, description: 'Skill contents.' })
  skills: object[] | null;
  @ApiProperty({ type: 'integer', format: 'int64', description: 'Number of connectors referenced.' })
  connector_count: number;
  @ApiProperty({ type: 'array', items: { type: 'object' }, nullable: true, description: 'Connector contents.' })
  connectors: object[] | null;
  @ApiProperty({ type: [ConnectorRefDto], nullable: true, description: 'Referenced connectors and their requirements.' })
  connector_refs: ConnectorRefDto[] | null;
  @ApiProperty({ type: Boolean, description: 'Whether the resource holds a usable resource package.' })
  has_package: boolean;
  @ApiProperty({ description: 'Address of the resource icon.' })
  icon_url: string;
  @ApiProperty({ description: 'Usage instructions from the package.' })
  readme_content: string;
  @ApiProperty({ description: 'Chinese usage instructions from the package.' })
  readme_content_cn: string;
  @ApiProperty({ type: 'integer', format: 'int64', description: 'Current revision; send it as expected_revision on the next update.' })
  revision: number;
  @ApiProperty({ format: 'date-time' })
  created_at: string;
  @ApiProperty({ format: 'date-time' })
  updated_at: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Category of the suite in the enterprise market.' })
  category_id: string | null;
  @ApiProperty({ type: 'integer', format: 'int64', description: 'Revision of the market entry; send it as expected_market_item_revision.' })
  market_item_revision: number;
}
