import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { Registries } from '../registries/registries';
import { REQUIRED_SCOPE } from './auth.decorators';

/**
 * Refuses to start an application with a route whose @RequireScope names a scope its catalog lacks
 * (misspelt, or defined by a module that does not list it in its definitions): such a route would
 * refuse every key.
 */
@Injectable()
export class RequiredScopesCheck implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly registries: Registries,
  ) {}

  onModuleInit(): void {
    const unknown: string[] = [];
    for (const { metatype } of this.discovery.getControllers()) {
      if (!metatype) continue;
      const prototype = metatype.prototype as Record<string, unknown>;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const scope = this.reflector.getAllAndOverride<string | undefined>(REQUIRED_SCOPE, [prototype[method] as () => unknown, metatype]);
        if (scope !== undefined && !this.registries.scopes.has(scope)) unknown.push(`${metatype.name}.${method}: ${scope}`);
      }
    }
    if (unknown.length > 0) {
      throw new Error(`@RequireScope names scopes no module lists in its definitions (defineScope in the module's .scopes.ts, then the module's static definitions): ${unknown.join('; ')}`);
    }
  }
}
