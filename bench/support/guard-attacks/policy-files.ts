/**
 * Policy files that change under the server (issue 33): `policy serve`
 * watched file inodes, so it served the first `sed -i` edit and then none.
 * Each attack edits a real served folder the way an editor, `sed -i`,
 * `git checkout` or a Kubernetes ConfigMap does, and counts the edit held
 * when the server serves it within a few seconds (and `/health?bundles`
 * tells a broken edit). Nothing here passes the server a flag of today, so
 * the same attacks run against the code before the fix.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, startCli, type ChildService } from '../child-services.js';
import { attackTally, type GuardAttackClass, type GuardAttackContext } from './guard-attack.js';

/** How long an edit may take to be served (the recheck runs every 2 s). */
const SERVED_WITHIN_MS = 8_000;

const policy = (version: number): string => `package files\n\nversion := ${version}\n`;

async function served(server: ChildService, version: number): Promise<boolean> {
  const deadline = Date.now() + SERVED_WITHIN_MS;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${server.url}/v1/data/files/version`, { method: 'POST', body: '{}' });
      const body = (await response.json()) as { result?: unknown };
      if (body.result === version) return true;
    } catch {
      // Not answering is not serving.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

async function healthStatus(server: ChildService): Promise<number> {
  const deadline = Date.now() + SERVED_WITHIN_MS;
  let status = 0;
  while (Date.now() < deadline) {
    status = (await fetch(`${server.url}/health?bundles`)).status;
    if (status !== 200) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return status;
}

async function serve(name: string, dir: string): Promise<ChildService> {
  const port = await freePort();
  return startCli({ name, args: ['policy', 'serve', dir, '--addr', `127.0.0.1:${port}`], port });
}

const sed = (file: string, from: number, to: number): void => {
  execFileSync('sed', ['-i', `s/version := ${from}$/version := ${to}/`, file]);
};

export const policyFilesAttacks: GuardAttackClass = {
  name: 'policy-files',
  async run(context: GuardAttackContext) {
    const tally = attackTally();

    // A plain folder, edited every way a person or a tool edits it.
    const dir = join(context.scratch, 'plain');
    await mkdir(dir);
    const file = join(dir, 'files.rego');
    await writeFile(file, policy(1));
    const server = await serve('policy serve (plain folder)', dir);
    try {
      if (!(await served(server, 1))) throw new Error('the policy server does not serve its folder at all');
      sed(file, 1, 2);
      tally.check(await served(server, 2), 'a first sed -i edit was not served');
      sed(file, 2, 3);
      tally.check(await served(server, 3), 'a second sed -i edit was not served');
      await writeFile(file, policy(4));
      tally.check(await served(server, 4), 'an in-place rewrite of the file was not served');
      await writeFile(join(dir, '.files.rego.swp'), policy(5));
      await rename(join(dir, '.files.rego.swp'), file);
      tally.check(await served(server, 5), 'a save by rename (as vim and VS Code save) was not served');
      const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=attacker', '-c', 'user.email=attacker@example.com', ...args], { cwd: dir });
      git('init', '-q');
      git('add', 'files.rego');
      git('commit', '-qm', 'v5');
      await writeFile(file, policy(6));
      git('commit', '-qam', 'v6');
      tally.check(await served(server, 6), 'an edit committed with git was not served');
      git('checkout', '-q', 'HEAD~1', '--', 'files.rego');
      tally.check(await served(server, 5), 'a git checkout of an older version was not served');
      await mkdir(join(dir, 'later'));
      await writeFile(join(dir, 'later', 'more.rego'), 'package files\n\nlater := true\n');
      await writeFile(file, policy(7));
      tally.check(await served(server, 7), 'an edit after a new sub-folder appeared was not served');
      // A tightening edit that breaks: the server keeps the last good set and must say so.
      await writeFile(join(dir, '.broken'), 'package files\n\nversion := \n');
      await rename(join(dir, '.broken'), file);
      tally.check((await healthStatus(server)) === 500, 'a broken edit saved by rename left /health?bundles at 200');
    } finally {
      await server.stop();
    }

    // A Kubernetes ConfigMap volume: each file is a link through `..data`, itself a link to a
    // timestamped folder; an update writes a new folder and swaps `..data` by rename.
    const mounted = join(context.scratch, 'configmap');
    await mkdir(join(mounted, '..2026_01_01_00_00_00.000000001'), { recursive: true });
    await writeFile(join(mounted, '..2026_01_01_00_00_00.000000001', 'files.rego'), policy(1));
    await symlink('..2026_01_01_00_00_00.000000001', join(mounted, '..data'));
    await symlink(join('..data', 'files.rego'), join(mounted, 'files.rego'));
    const mountedServer = await serve('policy serve (ConfigMap volume)', mounted);
    try {
      tally.check(await served(mountedServer, 1), 'the policies of a ConfigMap volume (files that are links) were not served');
      for (const version of [2, 3]) {
        const folder = `..2026_01_01_00_00_00.00000000${version}`;
        await mkdir(join(mounted, folder));
        await writeFile(join(mounted, folder, 'files.rego'), policy(version));
        await symlink(folder, join(mounted, '..data_tmp'));
        await rename(join(mounted, '..data_tmp'), join(mounted, '..data'));
        await rm(join(mounted, `..2026_01_01_00_00_00.00000000${version - 1}`), { recursive: true });
        tally.check(await served(mountedServer, version), `ConfigMap update ${version - 1} (a ..data link swap) was not served`);
      }
    } finally {
      await mountedServer.stop();
    }
    return tally.result();
  },
};
