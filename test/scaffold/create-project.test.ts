import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { createProject } from '../../runtime/scaffold/create-project.js';
import { toolkitInfo } from '../../runtime/scaffold/toolkit-root.js';
import { ProjectFileSchema } from '../../runtime/supervisor/project-file.js';
import { parse } from 'yaml';
import { validateComposeText } from '../support/compose-schema.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'fw-create-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('createProject', () => {
  it('writes the project layout and lists what it created', async () => {
    const dir = join(base, 'demo');
    const summary = await createProject({ dir, name: 'demo' });
    expect(summary).toMatchObject({ root: dir, name: 'demo', kind: 'project' });
    expect(summary.created).toEqual(
      expect.arrayContaining([
        'agents/.gitkeep',
        'services/guardian/policies/a2a_access.rego',
        'services/semantic_layer/agent_cards/.gitkeep',
        'compose.yaml',
        '.framework/project.json',
        'package.json',
        'tsconfig.json',
        '.env.example',
        'README.md',
        '.gitignore',
      ]),
    );
    for (const file of summary.created) expect((await stat(join(dir, file))).isFile(), file).toBe(true);
    expect(summary.created).toEqual([...summary.created].sort());
  });

  it('writes a project.json that validates and describes the stack for `up`', async () => {
    const dir = join(base, 'demo');
    await createProject({ dir, name: 'demo' });
    const project = ProjectFileSchema.parse(JSON.parse(await readFile(join(dir, '.framework/project.json'), 'utf8')));
    expect(project).toMatchObject({
      name: 'demo',
      kind: 'project',
      build: ['node', 'node_modules/typescript/bin/tsc', '-p', '.'],
      toolkitVersion: toolkitInfo().version,
    });
    const byName = Object.fromEntries(project.services.map((s) => [s.name, s]));
    expect(byName.policy).toMatchObject({ kind: 'policy', port: 8181, args: ['policy', 'serve', 'services/guardian/policies', '--addr', '127.0.0.1:8181'] });
    expect(byName.guardian).toMatchObject({
      port: 11438,
      dependsOn: ['policy'],
      args: ['serve', 'guardian', '--addr', '127.0.0.1:11438', '--opa-url', 'http://127.0.0.1:8181'],
    });
    expect(byName['semantic-layer']).toMatchObject({ port: 10100, optional: true });
    expect(byName['semantic-layer']?.args).toEqual([
      'serve',
      'semantic-layer',
      '--addr',
      '127.0.0.1:10100',
      '--cards',
      'services/semantic_layer/agent_cards',
      '--store-dir',
      '.framework/semantic',
    ]);
    expect(byName.model).toMatchObject({ kind: 'model', port: 11434, optional: true, args: ['model', 'serve', '--addr', '127.0.0.1:11434'] });
  });

  it('writes a package.json that takes framework_core from the registry at this version, pins TypeScript and installs the model runtime', async () => {
    const dir = join(base, 'demo');
    await createProject({ dir, name: 'demo' });
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    const toolkit = toolkitInfo();
    expect(manifest.type).toBe('module');
    expect(manifest.dependencies).toEqual({ framework_core: `^${toolkit.version}` });
    expect(manifest.devDependencies?.typescript).toBe(toolkit.typescriptVersion);
    expect(manifest.devDependencies?.typescript).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.scripts).toMatchObject({ build: 'tsc -p .', postinstall: 'framework-cli runtime install' });
    const tsconfig = JSON.parse(await readFile(join(dir, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    expect(tsconfig.compilerOptions).toMatchObject({ module: 'NodeNext', strict: true, outDir: 'dist', rootDir: '.' });
  });

  it('takes framework_core from a toolkit folder or an npm pack tarball with toolkit, and refuses anything else', async () => {
    const toolkit = toolkitInfo();
    const fromFolder = join(base, 'from-folder');
    await createProject({ dir: fromFolder, name: 'demo', toolkit: toolkit.root });
    const manifest = JSON.parse(await readFile(join(fromFolder, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(manifest.dependencies).toEqual({ framework_core: `file:${toolkit.root}` });

    const tarball = join(base, 'framework_core-9.9.9.tgz');
    await writeFile(tarball, 'packed');
    const fromTarball = join(base, 'from-tarball');
    await createProject({ dir: fromTarball, name: 'demo', toolkit: tarball });
    const packed = JSON.parse(await readFile(join(fromTarball, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    expect(packed.dependencies).toEqual({ framework_core: `file:${tarball}` });

    await expect(createProject({ dir: join(base, 'a'), name: 'demo', toolkit: join(base, 'missing') })).rejects.toThrow(/no such file or folder/);
    await expect(createProject({ dir: join(base, 'b'), name: 'demo', toolkit: base })).rejects.toThrow(/no framework_core package.json/);
    await expect(createProject({ dir: join(base, 'c'), name: 'demo', toolkit: join(fromFolder, 'package.json') })).rejects.toThrow(/tarball made by npm pack/);
  });

  it('copies the toolkit policies and ignores secrets in git', async () => {
    const dir = join(base, 'demo');
    await createProject({ dir, name: 'demo' });
    const shipped = await readFile(join(toolkitInfo().policiesDir, 'a2a_access.rego'), 'utf8');
    expect(await readFile(join(dir, 'services/guardian/policies/a2a_access.rego'), 'utf8')).toBe(shipped);
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toContain('.framework/secrets/');
  });

  it('writes a compose.yaml that validates against the Compose Specification', async () => {
    const dir = join(base, 'demo');
    await createProject({ dir, name: 'demo' });
    const text = await readFile(join(dir, 'compose.yaml'), 'utf8');
    const { valid, errors } = validateComposeText(text);
    expect(errors).toEqual([]);
    expect(valid).toBe(true);
    const compose = parse(text) as { services: Record<string, { image?: string; build?: unknown; ports?: unknown; command?: string[] }>; volumes: object };
    expect(Object.keys(compose.services)).toEqual(['model', 'policy', 'guardian', 'semantic-layer']);
    // One toolkit image runs every service by its command, on a base image given as a build argument; nothing is published.
    for (const service of Object.values(compose.services)) {
      expect(service).toMatchObject({
        image: 'demo-toolkit:latest',
        build: { context: '.', dockerfile: 'services/Dockerfile', args: { BASE_IMAGE: '${FRAMEWORK_BASE_IMAGE:-node:20-bookworm-slim}' } },
      });
      expect(service.ports).toBeUndefined();
    }
    expect(compose.services.guardian?.command).toEqual(['serve', 'guardian', '--addr', '0.0.0.0:11438', '--allow-remote', '--opa-url', 'http://policy:8181']);
    expect(Object.keys(compose.volumes).sort()).toEqual(['model-cache', 'vector-store']);
    expect(text).toContain('condition: service_healthy');
  });

  it('refuses a folder that is not empty unless forced', async () => {
    const dir = join(base, 'taken');
    await createProject({ dir, name: 'taken' });
    await writeFile(join(dir, 'notes.txt'), 'mine');
    const error = await createProject({ dir, name: 'taken' }).catch((e: unknown) => e);
    expect(FrameworkError.isInstance(error) && error.code).toBe('invalid_request');
    expect((error as Error).message).toMatch(/not empty.*--dir.*--force/);
    const forced = await createProject({ dir, name: 'taken', force: true });
    expect(forced.created).toContain('compose.yaml');
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('refuses a bad name before touching the disk', async () => {
    const error = await createProject({ dir: join(base, 'x'), name: '../x' }).catch((e: unknown) => e);
    expect((error as FrameworkError).code).toBe('invalid_request');
    await expect(stat(join(base, 'x'))).rejects.toThrow();
  });
});
