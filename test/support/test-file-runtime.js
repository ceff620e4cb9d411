// jest's module loader (jest.config.js `runtime`): jest's own, with two changes for a worker that
// runs many test files one after the other.
//
// V8's code cache kept per jest worker. jest evaluates every module again for each test file (each
// file has its own module registry), and it compiles each one from source every time: Nest,
// Prisma's client, PGlite and the service itself are parsed and compiled again by every e2e file.
// This loader keeps V8's compiled code of each module (Script#createCachedData) in the worker's
// memory once a file is done with it, and hands it to the next file's compilation of the same
// source. Modules are still evaluated afresh in each file's own context, so files stay as isolated
// as before; V8 checks that the cached code belongs to the same source and flags, and compiles from
// source when it does not.
//
// AsyncLocalStorage instances released when their file ends. `node:async_hooks` is one module for
// the whole worker, and on Node 20 every enabled AsyncLocalStorage stays in its list of storages,
// which every new promise walks, until disable() is called: the storages each file's service
// creates (transactions, lock waits) would pile up over the worker's files and make every later
// promise slower. A file gets an AsyncLocalStorage class that remembers its instances.
const { Script, SyntheticModule } = require('node:vm');
const { default: Runtime } = require('jest-runtime');
const { handlePotentialSyntaxError } = require('@jest/transform');
const { invariant } = require('jest-util');
const asyncHooks = require('node:async_hooks');

/** filename → the wrapped source and V8's code for it, for the worker's later test files. */
const compiled = new Map();

/**
 * Node 20 loses a script's importModuleDynamically callback when the script is compiled from
 * cached code (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING at the first `import()`): such modules
 * (PGlite loads its parts with `import()`) are compiled from source every time.
 */
const cacheable = (source) => !source.includes('import(');

class TestFileRuntime extends Runtime {
  /** Scripts this test file compiled without usable cached code, cached at teardown. */
  #uncached = [];
  /** `node:async_hooks` as this test file sees it, its AsyncLocalStorage instances disabled at teardown. */
  #asyncHooks = undefined;
  #storages = [];

  _requireCoreModule(moduleName, supportPrefix) {
    if (moduleName === 'async_hooks' || moduleName === 'node:async_hooks') return (this.#asyncHooks ??= this.#fileAsyncHooks());
    return super._requireCoreModule(moduleName, supportPrefix);
  }

  #fileAsyncHooks() {
    const storages = this.#storages;
    class AsyncLocalStorage extends asyncHooks.AsyncLocalStorage {
      constructor(...args) {
        super(...args);
        storages.push(this);
      }
    }
    return { ...asyncHooks, AsyncLocalStorage };
  }

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
    for (const storage of this.#storages.splice(0)) storage.disable();
    super.teardown();
  }
}

module.exports = TestFileRuntime;
