/**
 * Where a project's recent traces live: `<root>/.framework/traces/`. Its own
 * module so that what only names the folder (the `trace` command's help, the
 * compose files) does not load the span store and its schema.
 */
export const TRACES_DIR = '.framework/traces';
