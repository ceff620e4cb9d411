import type { ExpertSuite, MarketItem } from '../../generated/prisma/client';
import { uploadContentPath } from '../uploads/upload-kind';
import type { ConnectorRefDto, ExpertSuiteDto } from './dto/expert-suite.dto';

/** A suite as the service reads it: `last_change` only serves the PATCH's own statement (ExpertSuitesRepository.updateInOneStatement). */
export type ExpertSuiteWithMarketItem = Omit<ExpertSuite, 'lastChange'> & { marketItem: MarketItem | null };

/**
 * The wire form: snake_case, int64 as JSON numbers, UTC ISO date-times. An uploaded icon's address
 * is built here, when the answer is written, from the address clients reach the service at
 * (`publicBaseUrl`): it is never stored, so it follows PUBLIC_BASE_URL and the proxy in front.
 */
export function toExpertSuiteDto(suite: ExpertSuiteWithMarketItem, publicBaseUrl: string): ExpertSuiteDto {
  return {
    id: suite.id,
    name: suite.name,
    display_name: suite.displayName,
    display_name_cn: suite.displayNameCn,
    description: suite.description,
    description_cn: suite.descriptionCn,
    version: suite.version,
    status: suite.status,
    origin: suite.origin,
    source_type: suite.sourceType,
    clients: (suite.clients as string[] | null) ?? null,
    command_count: Number(suite.commandCount),
    commands: (suite.commands as object[] | null) ?? null,
    skill_count: Number(suite.skillCount),
    skills: (suite.skills as object[] | null) ?? null,
    connector_count: Number(suite.connectorCount),
    connectors: (suite.connectors as object[] | null) ?? null,
    connector_refs: (suite.connectorRefs as ConnectorRefDto[] | null) ?? null,
    has_package: suite.hasPackage,
    icon_url: suite.iconUploadId === null ? suite.iconUrl : `${publicBaseUrl}${uploadContentPath(suite.iconUploadId)}`,
    readme_content: suite.readmeContent,
    readme_content_cn: suite.readmeContentCn,
    revision: Number(suite.revision),
    created_at: suite.createdAt.toISOString(),
    updated_at: suite.updatedAt.toISOString(),
    category_id: suite.marketItem?.categoryId ?? null,
    market_item_revision: Number(suite.marketItem?.revision ?? 0),
  };
}
