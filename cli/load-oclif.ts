type Oclif = typeof import('@oclif/core');

/**
 * oclif's index (@oclif/core is CommonJS), imported when it is needed: its
 * `default` export is the module itself, both from Node and from the
 * bundle (scripts/bundle-cli.mjs), whose chunk has nothing else.
 *
 * @example
 * const { execute } = await loadOclif();
 */
export async function loadOclif(): Promise<Oclif> {
  const module = (await import('@oclif/core')) as Oclif & { default?: Oclif };
  return module.default ?? module;
}
