/** Every scope the API checks (docs/api-conventions.md). A scope grants only itself. */
export const Scope = {
  DirectoryManage: 'admin.v1.user-directory.manage',
  ExpertSuitesManage: 'admin.v1.expert-suites.manage',
  QuotaRead: 'admin.v1.quota.read',
} as const;

export type ScopeName = (typeof Scope)[keyof typeof Scope];

export const ALL_SCOPES: readonly ScopeName[] = Object.values(Scope);

export function isKnownScope(value: string): value is ScopeName {
  return (ALL_SCOPES as readonly string[]).includes(value);
}
