#!/usr/bin/env node
import { execute } from '@oclif/core';
import { versionArgv } from '../../dist/cli/version-argv.js';

await execute({ args: versionArgv(process.argv.slice(2)), dir: import.meta.url });
