// The file test/meta/lint-guards.test.ts lints its typed snippets as, in a project of its own
// (tsconfig.json here) that loads in a moment; the snippets replace this text, which is never changed.
export {};
