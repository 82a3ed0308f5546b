import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { FrameworkError } from '../core/framework-error.js';
import { LOCAL_PORTS, PROJECT_PATHS } from '../scaffold/project-services.js';
import { readCompose, type ComposeFile } from '../scaffold/compose-file.js';
import { findComposeFile } from '../supervisor/compose-up.js';
import { loadProject } from '../supervisor/load-project.js';
import type { ServiceKind } from '../supervisor/project-file.js';

/** What a deployed service is: a toolkit service of the project, or its key-value store (Redis). */
export type DeployKind = ServiceKind | 'kv';

/** A named volume a service keeps state in. */
export interface DeployVolume {
  name: string;
  mountPath: string;
  /** The variable naming a host folder to use instead (`${FRAMEWORK_MODELS_DIR:-model-cache}`), if any. */
  hostFolderVariable?: string;
}

/** How an image is built (`compose.yaml`'s `build`): context and Dockerfile relative to the project root, build arguments resolved. */
export interface DeployBuild {
  image: string;
  context: string;
  dockerfile: string;
  args: Record<string, string>;
}

/** One service of the project as every orchestrator needs it (read from `compose.yaml`, health from `.framework/project.json`). */
export interface DeployService {
  name: string;
  kind: DeployKind;
  /** `toolkit` (the project's image, entry point `framework-cli`) or `redis`. */
  image: 'toolkit' | 'redis';
  /** Arguments after the image's entry point; absent for Redis (its image's own command). */
  command?: string[];
  port: number;
  /** GET path answering 200 when healthy; null for Redis (checked with `redis-cli ping`). */
  healthPath: string | null;
  env: Record<string, string>;
  /** Names of the project secrets it reads from /run/secrets/<name>. */
  secrets: string[];
  volumes: DeployVolume[];
  /** The host port its Compose service publishes its port on (reached from outside the stack), or null. */
  publishedPort: number | null;
  /** Its sessions live in the key-value store, so replicas share them. */
  sharedSessions: boolean;
  /** Its Compose health check, as written (what a swarm runs). */
  healthcheck?: Record<string, unknown>;
}

/** A file of a ConfigMap: its path under the mount, and its text. */
export interface ConfigFile {
  path: string;
  text: string;
}

/** Everything a deployment of the project needs. */
export interface DeployProject {
  root: string;
  name: string;
  images: { toolkit: string; redis: string };
  /** One build per image. */
  builds: DeployBuild[];
  services: DeployService[];
  /** Rego policies, mounted over `services/guardian/policies`. */
  policies: ConfigFile[];
  /** Agent cards with their URL's host set to the agent's service name (as the image build does), mounted over the cards folder. */
  cards: ConfigFile[];
  /** Secret name → its file's content (A2A keys, the memory token). Never printed. */
  secrets: Record<string, string>;
  /** Secret name → its file, absolute. */
  secretFiles: Record<string, string>;
}

/** Where the toolkit image keeps the project (its WORKDIR). */
export const APP_DIR = '/app';
/** Where secrets are mounted, the paths the services' environment already names. */
export const SECRETS_DIR = '/run/secrets';
/** A ConfigMap holds at most 1 MiB. */
const CONFIG_MAP_LIMIT = 1024 * 1024;
/** Names that must be DNS labels: Kubernetes Services and swarm service names reached by the others. */
const DNS_LABEL = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * Reads a project for deployment: its `compose.yaml` (the containers model
 * of `up --containers`: images, commands, environment with service names
 * for peers, secrets, volumes, published ports) and its `.framework/project.json`
 * (health paths). Fails with a clear `FrameworkError` when a name cannot
 * be a Kubernetes or swarm name, a secret file is missing, or the policies
 * do not fit a ConfigMap.
 *
 * @example
 * const project = readDeployProject({ root: 'projects/team' });
 */
export async function readDeployProject(options: { root: string }): Promise<DeployProject> {
  const { root } = options;
  const project = loadProject({ root });
  const compose = await readCompose({ path: findComposeFile({ root }) });
  checkName(project.name, 'The project name');
  const specs = new Map(project.services.map((s) => [s.name, s]));
  const services = Object.entries(compose.services).map(([name, raw]) => {
    checkName(name, `The service name "${name}"`);
    return deployService({ name, raw, spec: specs.get(name) });
  });
  const keyRuns = services.some((s) => s.kind === 'kv');
  for (const s of services) s.sharedSessions = s.kind === 'agent' && keyRuns && s.env.SESSION_BACKEND === 'kv';
  const policies = readTree(join(root, PROJECT_PATHS.policies), (path) => path.endsWith('.rego') || path.endsWith('.json') || path.endsWith('.yaml'));
  const cards = readTree(join(root, PROJECT_PATHS.cards), (path) => path.endsWith('.json')).map((file) => ({ path: file.path, text: cardForService(file) }));
  for (const [label, files] of [
    ['policies', policies],
    ['agent cards', cards],
  ] as const) {
    const size = files.reduce((n, f) => n + Buffer.byteLength(f.text), 0);
    if (size > CONFIG_MAP_LIMIT) {
      throw new FrameworkError({
        code: 'invalid_request',
        message: `The project's ${label} hold ${size} bytes, more than a ConfigMap's 1 MiB; split or trim them.`,
      });
    }
  }
  return {
    root,
    name: project.name,
    images: imagesOf(compose, project.name),
    builds: buildsOf(compose),
    services,
    policies,
    cards,
    ...readSecrets({ root, compose }),
  };
}

function checkName(name: string, label: string): void {
  if (!DNS_LABEL.test(name)) {
    throw new FrameworkError({
      code: 'invalid_request',
      message: `${label} (${JSON.stringify(name)}) cannot name a Kubernetes or swarm service: use lower-case letters, digits and "-", starting with a letter, at most 63 characters.`,
    });
  }
}

interface RawService {
  image?: unknown;
  command?: unknown;
  environment?: unknown;
  secrets?: unknown;
  volumes?: unknown;
  ports?: unknown;
  healthcheck?: unknown;
}

function deployService(options: {
  name: string;
  raw: Record<string, unknown>;
  spec: { kind: ServiceKind; port: number; healthPath: string } | undefined;
}): DeployService {
  const { name, spec } = options;
  const raw = options.raw as RawService;
  const isRedis = typeof raw.image === 'string' && raw.image.endsWith('-redis:latest');
  if (!spec && !isRedis) {
    throw new FrameworkError({
      code: 'invalid_request',
      message: `compose.yaml has a service "${name}" that .framework/project.json does not list; add it with framework-cli add agent, or remove it from compose.yaml.`,
    });
  }
  const env = Object.fromEntries(Object.entries(isRecord(raw.environment) ? raw.environment : {}).map(([k, v]) => [k, String(v)]));
  return {
    name,
    kind: isRedis ? 'kv' : spec!.kind,
    image: isRedis ? 'redis' : 'toolkit',
    ...(isRedis ? {} : { command: stringList(raw.command, `${name}.command`) }),
    port: isRedis ? LOCAL_PORTS.kv : spec!.port,
    healthPath: isRedis ? null : spec!.healthPath,
    env,
    secrets: raw.secrets === undefined ? [] : stringList(raw.secrets, `${name}.secrets`),
    volumes: namedVolumes(raw.volumes, name),
    publishedPort: publishedPort(raw.ports, name),
    sharedSessions: false,
    ...(isRecord(raw.healthcheck) ? { healthcheck: raw.healthcheck } : {}),
  };
}

/** `model-cache:/models` or `${FRAMEWORK_MODELS_DIR:-model-cache}:/models`: the named volume (the default) and where it is mounted. */
function namedVolumes(value: unknown, service: string): DeployVolume[] {
  if (value === undefined) return [];
  return stringList(value, `${service}.volumes`).map((entry) => {
    const match = /^(?:\$\{([A-Z_]+):-)?([a-z][a-z0-9_-]*)\}?:(\/[^:]+)$/.exec(entry);
    if (!match) {
      throw new FrameworkError({
        code: 'invalid_request',
        message: `compose.yaml: the volume ${JSON.stringify(entry)} of ${service} is not a named volume (name:/path); deployments carry named volumes only.`,
      });
    }
    return { name: match[2]!, mountPath: match[3]!, ...(match[1] ? { hostFolderVariable: match[1] } : {}) };
  });
}

/** `"8002:8002"` or `"8002"`: the host port (the first entry's; an agent publishes one). */
function publishedPort(value: unknown, service: string): number | null {
  if (value === undefined) return null;
  const first = stringList(value, `${service}.ports`)[0];
  if (first === undefined) return null;
  const port = Number(first.split(':').at(-2) ?? first.split(':').at(-1));
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new FrameworkError({ code: 'invalid_request', message: `compose.yaml: the port ${JSON.stringify(first)} of ${service} is not host:container.` });
  }
  return port;
}

function stringList(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' || typeof v === 'number')) {
    throw new FrameworkError({ code: 'invalid_request', message: `compose.yaml: ${where} must be a list of strings.` });
  }
  return value.map(String);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function imagesOf(compose: ComposeFile, project: string): { toolkit: string; redis: string } {
  const images = Object.values(compose.services).map((s) => s.image);
  const pick = (suffix: string) => images.find((i): i is string => typeof i === 'string' && i.endsWith(suffix)) ?? `${project}${suffix}`;
  return { toolkit: pick('-toolkit:latest'), redis: pick('-redis:latest') };
}

/** `${VAR:-default}` with VAR from the environment, as Compose reads it. */
function interpolate(value: string): string {
  return value.replace(/\$\{([A-Z_][A-Z0-9_]*):-([^}]*)\}/g, (_, name: string, fallback: string) => process.env[name] || fallback);
}

function buildsOf(compose: ComposeFile): DeployBuild[] {
  const builds = new Map<string, DeployBuild>();
  for (const [name, service] of Object.entries(compose.services)) {
    const build = service.build;
    if (!isRecord(build) || typeof service.image !== 'string' || builds.has(service.image)) continue;
    if (typeof build.context !== 'string' || typeof build.dockerfile !== 'string') {
      throw new FrameworkError({ code: 'invalid_request', message: `compose.yaml: the build of ${name} needs a "context" and a "dockerfile".` });
    }
    const args = isRecord(build.args) ? Object.fromEntries(Object.entries(build.args).map(([k, v]) => [k, interpolate(String(v))])) : {};
    builds.set(service.image, { image: service.image, context: build.context, dockerfile: build.dockerfile, args });
  }
  return [...builds.values()];
}

/** The files under `dir` (hidden ones skipped), sorted, with paths relative to it. */
function readTree(dir: string, keep: (path: string) => boolean): ConfigFile[] {
  const files: ConfigFile[] = [];
  const walk = (at: string) => {
    let names: string[];
    try {
      names = readdirSync(at).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const rel = relative(dir, path).split(sep).join('/');
        if (keep(rel)) files.push({ path: rel, text: readFileSync(path, 'utf8') });
      }
    }
  };
  walk(dir);
  return files;
}

/** A card's URL host is its agent's service name inside a cluster or a swarm, as the toolkit image's build writes it. */
function cardForService(file: ConfigFile): string {
  let card: { name?: unknown; url?: unknown };
  try {
    card = JSON.parse(file.text) as { name?: unknown; url?: unknown };
  } catch {
    throw new FrameworkError({ code: 'invalid_request', message: `The agent card ${PROJECT_PATHS.cards}/${file.path} is not valid JSON; fix it.` });
  }
  if (typeof card.name !== 'string' || typeof card.url !== 'string' || !URL.canParse(card.url)) {
    throw new FrameworkError({ code: 'invalid_request', message: `The agent card ${PROJECT_PATHS.cards}/${file.path} needs a "name" and a "url"; fix it.` });
  }
  const url = new URL(card.url);
  url.hostname = card.name;
  return `${JSON.stringify({ ...card, url: url.href }, null, 2)}\n`;
}

/** The content of each secret the compose file names (its `file:`, relative to the project root). */
function readSecrets(options: { root: string; compose: ComposeFile }): { secrets: Record<string, string>; secretFiles: Record<string, string> } {
  const secrets: Record<string, string> = {};
  const secretFiles: Record<string, string> = {};
  for (const [name, spec] of Object.entries(options.compose.secrets ?? {})) {
    const file = typeof spec.file === 'string' ? spec.file : undefined;
    if (!file) throw new FrameworkError({ code: 'invalid_request', message: `compose.yaml: the secret ${name} has no "file"; restore it.` });
    try {
      secretFiles[name] = resolve(options.root, file);
      secrets[name] = readFileSync(secretFiles[name], 'utf8');
    } catch {
      throw new FrameworkError({
        code: 'invalid_request',
        message: `The secret ${name} (${file}) is missing; create the project again or restore the file (framework-cli create writes it).`,
      });
    }
  }
  return { secrets, secretFiles };
}
