import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { FrameworkError } from '../core/framework-error.js';

/** Where the packed toolkit goes in a project (what `services/Dockerfile` installs). */
export const PACKED_TOOLKIT = 'vendor/framework_core.tgz';

/**
 * Packs the toolkit (`npm pack`, without its lifecycle scripts: `dist/` is
 * already built) into `<projectRoot>/vendor/framework_core.tgz`, the
 * dependency the toolkit image installs. npm writes the same bytes for the
 * same files, so an unchanged toolkit keeps the image's dependency layer cached.
 *
 * @example
 * await packToolkit({ toolkitRoot, projectRoot });
 */
export async function packToolkit(options: { toolkitRoot: string; projectRoot: string }): Promise<string> {
  const dir = join(options.projectRoot, 'vendor');
  await mkdir(dir, { recursive: true });
  const result = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: options.toolkitRoot,
    reject: false,
    shell: false,
    stdin: 'ignore',
  });
  const packed = result.failed ? undefined : (JSON.parse(String(result.stdout)) as { filename?: string }[])[0]?.filename;
  if (!packed) {
    throw new FrameworkError({
      code: 'compose_failed',
      message: `npm pack of the toolkit in ${options.toolkitRoot} failed: ${String(result.stderr).trim().split('\n').pop() ?? result.shortMessage}`,
    });
  }
  const target = join(options.projectRoot, PACKED_TOOLKIT);
  const fresh = join(dir, packed.replace(/^@[^/]+\//, '').replace('/', '-'));
  // The same toolkit again: keep the file as it was, so the image build sees nothing new.
  if ((await readFile(target).catch(() => undefined))?.equals(await readFile(fresh))) {
    await rm(fresh, { force: true });
    return target;
  }
  await rm(target, { force: true });
  await rename(fresh, target);
  return target;
}
