/**
 * Jest runs the unit tests in test/**\/*.test.ts through ts-jest, type-checked
 * against tsconfig.test.json (CommonJS, jest and node types).  The default
 * environment is jsdom so DOM-building code can be tested; a test file can
 * opt out with a `@jest-environment node` docblock.
 */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'jsdom',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The golden suite needs the fixtures tests/test_golden_model.py writes; run without them it
  // fails, so a plain `jlpm test` leaves it to that test.
  testPathIgnorePatterns: process.env.PASSVIZ_GOLDEN ? ['/node_modules/'] : ['/node_modules/', 'golden\\.test\\.ts$'],
  moduleFileExtensions: ['ts', 'tsx', 'js', 'mjs', 'cjs', 'json'],
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }]
  },
  // Styles are bundled by webpack/esbuild; in unit tests they are empty modules.
  moduleNameMapper: {
    '\\.css$': '<rootDir>/test/style-mock.js',
    // The worker's code is bundled by the build; unit tests run the viewer without it.
    '/generated/workercode$': '<rootDir>/test/workercode-mock.ts'
  }
};
