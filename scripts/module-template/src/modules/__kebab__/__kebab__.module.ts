import { Module } from '@nestjs/common';
import { __Plural__Controller } from './__kebab__.controller';
import { __Plural__Repository } from './__kebab__.repository';
import { __Plural__Service } from './__kebab__.service';

@Module({ controllers: [__Plural__Controller], providers: [__Plural__Service, __Plural__Repository] })
export class __Plural__Module {}
