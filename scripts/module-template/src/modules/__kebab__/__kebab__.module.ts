import { Module } from '@nestjs/common';
import { __Plural__Controller } from './__kebab__.controller';
import { __Plural__Service } from './__kebab__.service';

@Module({ controllers: [__Plural__Controller], providers: [__Plural__Service] })
export class __Plural__Module {}
