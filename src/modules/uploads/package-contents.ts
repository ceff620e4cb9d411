/** One command or skill of a package: its name and the Markdown it is made of. */
export interface PackageDocument {
  name: string;
  content: string;
}

export interface PackageConnectorRef {
  connector_id: string;
  connector_origin: string;
  required: boolean;
}

/**
 * What is read from a resource package at upload time and kept with the upload (uploads.manifest);
 * applying the package to a suite copies it from there, without touching the archive again.
 */
export interface PackageContents {
  name: string;
  version: string;
  display_name: string | null;
  description: string | null;
  commands: PackageDocument[];
  skills: PackageDocument[];
  /** The objects of connectors.json as they were written; connector_count is their number. */
  connectors: Record<string, unknown>[];
  /** connector_id, connector_origin and required of the elements of connectors.json that name a connector. */
  connector_refs: PackageConnectorRef[];
  readme_content: string;
  readme_content_cn: string;
}
