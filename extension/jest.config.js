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
  moduleFileExtensions: ['ts', 'tsx', 'js', 'mjs', 'cjs', 'json'],
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }]
  },
  // Styles are bundled by webpack/esbuild; in unit tests they are empty modules.
  moduleNameMapper: {
    '\\.css$': '<rootDir>/test/style-mock.js'
  }
};
