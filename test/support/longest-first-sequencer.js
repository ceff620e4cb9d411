const { default: DefaultSequencer } = require('@jest/test-sequencer');

/**
 * The files that take a minute or more on a 2-core machine (a browser, an npm install, compiles,
 * several started services), started first and in this order, so that none of them starts last and
 * ends the run on one worker while the others idle: on a clean clone (CI's) jest knows no durations
 * and orders the files by size, which started the browser test last. The other files keep jest's
 * order (failed last time first, then longest, else largest).
 */
const KNOWN_LONG = [
  'test/swagger-ui-browser.e2e-spec.ts',
  'test/production-install.e2e-spec.ts',
  'test/typed-client-recipe.e2e-spec.ts',
  'test/startup.e2e-spec.ts',
  'test/scim-groups.e2e-spec.ts',
  'test/readme-examples.e2e-spec.ts',
];

class LongestFirstSequencer extends DefaultSequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const rank = (test) => {
      const index = KNOWN_LONG.findIndex((file) => test.path.endsWith(file));
      return index === -1 ? KNOWN_LONG.length : index;
    };
    // Array.prototype.sort is stable: the rest keep jest's order.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = LongestFirstSequencer;
