// jest's module loader with V8's code cache kept per jest worker (jest.config.js `runtime`).
//
// jest evaluates every module again for each test file (each file has its own module registry),
// and it compiles each one from source every time: Nest, Prisma's client, PGlite and the service
// itself are parsed and compiled again by every e2e file. This loader keeps V8's compiled code of
// each module (Script#createCachedData) in the worker's memory once a file is done with it, and
// hands it to the next file's compilation of the same source. Modules are still evaluated afresh
// in each file's own context, so files stay as isolated as before; V8 checks that the cached code
// belongs to the same source and flags, and compiles from source when it does not.
const { Script, SyntheticModule } = require('node:vm');
const { default: Runtime } = require('jest-runtime');
const { handlePotentialSyntaxError } = require('@jest/transform');
const { invariant } = require('jest-util');

/** filename → the wrapped source and V8's code for it, for the worker's later test files. */
const compiled = new Map();

/**
 * Node 20 loses a script's importModuleDynamically callback when the script is compiled from
 * cached code (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING at the first `import()`): such modules
 * (PGlite loads its parts with `import()`) are compiled from source every time.
 */
const cacheable = (source) => !source.includes('import(');

class CodeCacheRuntime extends Runtime {
  /** Scripts this test file compiled without usable cached code, cached at teardown. */
  #uncached = [];

  // As jest-runtime's own createScriptFromCode (jest 29.7), with cachedData added.
  createScriptFromCode(scriptSource, filename) {
    try {
      const scriptFilename = this._resolver.isCoreModule(filename) ? `jest-nodejs-core-${filename}` : filename;
      const source = this.wrapCodeInModuleWrapper(scriptSource);
      const known = cacheable(source) ? compiled.get(filename) : undefined;
      const script = new Script(source, {
        columnOffset: this._fileTransforms.get(filename)?.wrapperLength,
        displayErrors: true,
        filename: scriptFilename,
        cachedData: known?.source === source ? known.data : undefined,
        importModuleDynamically: async (specifier) => {
          invariant(
            typeof SyntheticModule === 'function',
            'You need to run with a version of node that supports ES Modules in the VM API. See https://jestjs.io/docs/ecmascript-modules',
          );
          const context = this._environment.getVmContext?.();
          invariant(context, 'Test environment has been torn down');
          const module = await this.resolveModule(specifier, scriptFilename, context);
          return this.linkAndEvaluateModule(module);
        },
      });
      if (cacheable(source) && (known?.source !== source || script.cachedDataRejected)) this.#uncached.push({ filename, source, script });
      return script;
    } catch (error) {
      throw handlePotentialSyntaxError(error);
    }
  }

  // After the file's tests, so that the cached code holds the functions they ran, not only the
  // modules' top-level code.
  teardown() {
    for (const { filename, source, script } of this.#uncached) compiled.set(filename, { source, data: script.createCachedData() });
    this.#uncached = [];
    super.teardown();
  }
}

module.exports = CodeCacheRuntime;
