// ts-jest expects { name, version, factory }; the Swagger plugin exports `before` instead.
const plugin = require('@nestjs/swagger/plugin');
const options = { classValidatorShim: true, introspectComments: true, dtoFileNameSuffix: ['.dto.ts'] };
module.exports = {
  name: 'nestjs-swagger-transformer',
  version: 1,
  factory: (compilerInstance) => plugin.before(options, compilerInstance.program),
};
