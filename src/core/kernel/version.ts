/** Holon's version, as clients and agents see it; test/core/version.test.ts keeps it equal to package.json's. */
export const HOLON_VERSION = '0.1.0';
