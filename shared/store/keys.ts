/**
 * The key builders of the single table. Every key template is declared once, with its entity, in
 * shared/store/entities.ts; the builders are generated from there into ./keys.gen.ts (plain template literals) and
 * re-exported here with the few helpers they use (./key-parts.ts). docs/access-patterns.md lists the access patterns
 * they serve (its item table generated from the same declarations); nothing outside shared/store builds a key. Imported
 * as a namespace (`import * as keys from '#shared/store/keys.ts'`), so each Lambda bundles only the builders it calls.
 */
export * from './key-parts.ts';
export * from './keys.gen.ts';
