/** Where a check found something in a parsed JSON value, and what it said. */
export interface JsonFinding<R> {
  /** `a.b[0].c`: the key or string found, named as validation errors name fields. */
  path: string;
  reason: R;
}

/**
 * Visits every key and every string of a parsed JSON value in document order, without recursion,
 * and returns the first one `check` gives a reason for.
 */
export function findInJson<R>(root: unknown, check: (text: string, isKey: boolean) => R | undefined): JsonFinding<R> | undefined {
  // [value, its path, the key it is held under (checked just before the value)]
  const pending: Array<[unknown, string, string | undefined]> = [[root, '', undefined]];
  while (pending.length > 0) {
    const [value, path, key] = pending.pop()!;
    const reason = (key === undefined ? undefined : check(key, true)) ?? (typeof value === 'string' ? check(value, false) : undefined);
    if (reason !== undefined) return { path, reason };
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], `${path}[${i}]`, undefined]);
    } else if (typeof value === 'object' && value !== null) {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        pending.push([(value as Record<string, unknown>)[keys[i]], joinPath(path, keys[i]), keys[i]]);
      }
    }
  }
  return undefined;
}

/** `parent.child`, or `parent[3]` for an array index. */
export function joinPath(prefix: string, property: string): string {
  if (/^\d+$/.test(property)) return `${prefix}[${property}]`;
  return prefix ? `${prefix}.${property}` : property;
}
