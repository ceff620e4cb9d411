import { Module } from '@nestjs/common';
import type { ModuleDefinitions } from '../../common/registries/registries';
import { __Plural__Audit } from './__kebab__.audit';
import { __Plural__Controller } from './__kebab__.controller';
import { __Plural__Error } from './__kebab__.errors';
import { __Plural__Repository } from './__kebab__.repository';
import { __Plural__ScopeDefinitions } from './__kebab__.scopes';
import { __Plural__Service } from './__kebab__.service';

@Module({ controllers: [__Plural__Controller], providers: [__Plural__Service, __Plural__Repository] })
export class __Plural__Module {
  /** What the module adds to the application's registries; AppModule collects it (docs/adding-a-module.md, "Registries"). */
  static readonly definitions: ModuleDefinitions = { scopes: __Plural__ScopeDefinitions, errors: __Plural__Error, auditActions: __Plural__Audit };
}
