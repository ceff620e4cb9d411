import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsString, IsUrl, Matches, ValidateBy, ValidateIf, ValidateNested, type ValidationOptions } from 'class-validator';
import { MaxCodePoints } from '../../../common/validation/field-rules';
import { BooleanField, EnumField, ExpectedRevisionField, IntegerField, Optional, TextField, UuidField } from '../../../common/validation/fields';
import { SUITE_STATUSES, type SuiteStatus } from '../suite-status';

/** Client type names: short, lower-case (e.g. `web`, `desktop`, `vscode-plugin`). */
const CLIENT_NAME_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;
const MAX_CLIENTS = 32;
const MAX_CONNECTOR_REFS = 200;

const lowerCaseSuggestion = (value: unknown): string | undefined => {
  const values = Array.isArray(value) ? value : [value];
  const bad = values.find((item) => typeof item === 'string' && !CLIENT_NAME_PATTERN.test(item));
  if (typeof bad !== 'string') return undefined;
  const normalized = bad.trim().toLowerCase();
  return CLIENT_NAME_PATTERN.test(normalized) ? normalized : undefined;
};

/** No two elements share connector_id and connector_origin. */
function UniqueConnectorRefs(options?: ValidationOptions) {
  return ValidateBy(
    {
      name: 'uniqueConnectorRefs',
      validator: {
        validate: (value: unknown) => {
          if (!Array.isArray(value)) return true;
          const keys = value
            .filter((ref): ref is ConnectorRefInputDto => typeof ref === 'object' && ref !== null)
            .map((ref) => JSON.stringify([ref.connector_id, ref.connector_origin]));
          return new Set(keys).size === keys.length;
        },
        defaultMessage: () => 'must not name the same connector (connector_id and connector_origin) twice',
      },
    },
    { ...options, context: { reason: 'duplicate' } },
  );
}

export class ConnectorRefInputDto {
  @TextField({ presence: 'required', maxLength: 255, notBlank: true, description: 'Identifier of the referenced connector (1 to 255 characters).' })
  connector_id: string;

  @TextField({ presence: 'required', maxLength: 64, notBlank: true, description: 'Origin of the referenced connector (1 to 64 characters).' })
  connector_origin: string;

  @BooleanField({ presence: 'required', description: 'Whether the connector is a required dependency of the suite.' })
  required: boolean;
}

/**
 * Body of PATCH /expert-suites/{resourceId} (docs/expert-suites.md). Every field is optional; a field left out
 * keeps its stored value. Unknown fields are rejected.
 */
export class UpdateExpertSuiteDto {
  @ExpectedRevisionField('suite')
  expected_revision?: number;

  @IntegerField({
    min: 1,
    description:
      'Expected revision of the enterprise market entry (see market_item_revision in the response). When it ' +
      'differs: 409 MARKET_ITEM_REVISION_CONFLICT and nothing changes.',
  })
  expected_market_item_revision?: number;

  @TextField({ maxLength: 255, trim: true, notBlank: true, description: 'Display name (1 to 255 characters; surrounding white space is removed).' })
  display_name?: string;

  @TextField({ maxLength: 255, trim: true, description: 'Chinese display name (at most 255 characters; surrounding white space is removed).' })
  display_name_cn?: string;

  @TextField({ maxLength: 4000, description: 'Description (at most 4000 characters).' })
  description?: string;

  @TextField({ maxLength: 4000, description: 'Chinese description (at most 4000 characters).' })
  description_cn?: string;

  @TextField({
    maxLength: 64,
    trim: true,
    notBlank: true,
    description:
      'Version identifier of the package (1 to 64 characters; surrounding white space is removed). With upload_id it ' +
      "must equal the package's version.",
  })
  version?: string;

  @EnumField({
    values: SUITE_STATUSES,
    description:
      'Record status. Allowed changes: draft→published, draft→disabled, published→disabled, disabled→published ' +
      '(else 409 INVALID_STATUS_TRANSITION). Publishing needs a package (else 422 PACKAGE_REQUIRED).',
  })
  status?: SuiteStatus;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    maxItems: MAX_CLIENTS,
    description:
      'Client types allowed to use the suite: null means every client type; an array lists them (duplicates ' +
      `are removed, order kept). Each name matches ${CLIENT_NAME_PATTERN.source}.`,
  })
  @Optional({ nullable: true })
  @IsArray()
  @ArrayMaxSize(MAX_CLIENTS)
  @IsString({ each: true })
  @Matches(CLIENT_NAME_PATTERN, { each: true, message: `each client must match ${CLIENT_NAME_PATTERN.source}`, context: { suggest: lowerCaseSuggestion } })
  clients?: string[] | null;

  @IntegerField({
    min: 0,
    description:
      'Number of commands. When the suite has (or this request applies) a package, it must equal the ' +
      "package's number of commands (else 400 invalid_value, suggestion = that number).",
  })
  command_count?: number;

  @IntegerField({ min: 0, description: 'Number of skills; checked against the package like command_count.' })
  skill_count?: number;

  @ApiPropertyOptional({
    type: [ConnectorRefInputDto],
    maxItems: MAX_CONNECTOR_REFS,
    description:
      'Replaces the whole list of referenced connectors; connector_count becomes its length. Every element ' +
      'needs connector_id, connector_origin and required; the same connector_id + connector_origin twice is ' +
      '400 duplicate.',
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_CONNECTOR_REFS)
  @ValidateNested({ each: true })
  @Type(() => ConnectorRefInputDto)
  @UniqueConnectorRefs()
  connector_refs?: ConnectorRefInputDto[];

  @ApiPropertyOptional({
    maxLength: 2048,
    description:
      'Address of the icon: an absolute http or https URL of at most 2048 characters, or "" to remove the ' +
      'icon. Not together with icon_upload_id.',
  })
  @Optional()
  @IsString()
  @MaxCodePoints(2048)
  @ValidateIf((_object: object, value: unknown) => value !== '')
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_valid_protocol: true, require_tld: false },
    { message: 'must be an absolute http or https URL' },
  )
  icon_url?: string;

  @UuidField({
    description:
      'upload_id of an uploaded icon (POST /api/openapi/v1/uploads, kind icon) of this organization; icon_url ' +
      'becomes the address the service serves it from. Not together with icon_url.',
  })
  icon_upload_id?: string;

  @UuidField({
    description:
      'upload_id of an uploaded resource package (kind package) of this organization. Replaces version, ' +
      'commands, skills, connectors, connector_refs, the counts and the readmes, and sets has_package.',
  })
  upload_id?: string;

  @UuidField({
    description:
      'Category of the suite in the enterprise market (422 CATEGORY_NOT_FOUND when the organization has no such ' +
      'category). Not together with clear_category: true.',
  })
  category_id?: string;

  @BooleanField({ description: 'true removes the current category; false changes nothing.' })
  clear_category?: boolean;
}
