import { z } from 'zod';

/** Where a project keeps its metadata, relative to its root. */
export const PROJECT_FILE = '.framework/project.json';
/** Where a detached stack keeps pids, state and logs, relative to the project root. */
export const RUN_DIR = '.framework/run';

/** What a service is, for ordering and messages. */
export const SERVICE_KINDS = ['model', 'policy', 'guardian', 'semantic-layer', 'memory', 'agent'] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];

/** One service of a stack: started as `framework-cli <args...>` (or `command`) in the project root. */
export const ServiceSpecSchema = z
  .object({
    /** Unique, lower-case: `model`, `policy`, `guardian`, `semantic-layer`, `planner`, ... */
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be a lower-case name'),
    kind: z.enum(SERVICE_KINDS),
    /** Port it listens on; `GET http://127.0.0.1:<port><healthPath>` answering 2xx means healthy. */
    port: z.number().int().min(1).max(65535),
    healthPath: z.string().startsWith('/').default('/health'),
    /** Arguments of `framework-cli` (e.g. ["serve", "agent", "--module", "dist/agents/planner/app.js", "--port", "8100"]). */
    args: z.array(z.string()).optional(),
    /** A full command instead of `framework-cli` (argv, no shell). */
    command: z.array(z.string()).min(1).optional(),
    /** Extra environment variables (names → values); the child gets only these plus a safe base set. */
    env: z.record(z.string(), z.string()).default({}),
    /** Services that must be healthy before this one starts. */
    dependsOn: z.array(z.string()).default([]),
    /** Health is optional for this service (e.g. the model runtime when the user runs Ollama themselves). */
    optional: z.boolean().default(false),
  })
  .refine((s) => (s.args === undefined) !== (s.command === undefined), { message: 'a service has either args (framework-cli) or command, not both' });
export type ServiceSpec = z.infer<typeof ServiceSpecSchema>;

/** `.framework/project.json`: what `create project` / `add agent` / `create swarm` write and `up` reads. */
export const ProjectFileSchema = z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
  /** Version of framework_core that scaffolded the project. */
  toolkitVersion: z.string(),
  kind: z.enum(['project', 'swarm']).default('project'),
  /** Run before the services start (argv, no shell), e.g. ["npx", "tsc", "-p", "."]; skipped when absent. */
  build: z.array(z.string()).min(1).optional(),
  services: z.array(ServiceSpecSchema),
});
export type ProjectFile = z.infer<typeof ProjectFileSchema>;
