#!/usr/bin/env node
// Writes oclif.manifest.json at the package root, as `oclif manifest` does, with
// @oclif/core's own loader: with it, `framework-cli --help` and command lookup
// read one JSON file instead of importing every command. Run by `npm run build`.
import { Plugin } from '@oclif/core';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = new URL('../oclif.manifest.json', import.meta.url);
rmSync(target, { force: true }); // a stale manifest would be read instead of the commands
const plugin = new Plugin({ root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true, isRoot: true });
await plugin.load();
if (plugin.manifest.commands === undefined || Object.keys(plugin.manifest.commands).length === 0) {
  console.error('oclif-manifest: no commands found under', plugin.pjson.oclif.commands);
  process.exit(1);
}
writeFileSync(target, `${JSON.stringify(plugin.manifest, null, 2)}\n`);
console.log(`oclif-manifest: ${Object.keys(plugin.manifest.commands).length} commands`);
