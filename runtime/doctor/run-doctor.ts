import { checkDocker } from './check-docker.js';
import { checkGuardian } from './check-guardian.js';
import { checkMemoryService } from './check-memory-service.js';
import { checkModelRuntime } from './check-model-runtime.js';
import { checkModelStore } from './check-model-store.js';
import { checkNode } from './check-node.js';
import { checkPolicyEngine } from './check-policy-engine.js';
import { checkPort } from './check-port.js';
import { checkRedis } from './check-redis.js';
import { checkSemanticLayer } from './check-semantic-layer.js';
import { checkVectorStore } from './check-vector-store.js';
import { checkResult, DEFAULT_PROBE_TIMEOUT_MS, type DoctorCheck } from './doctor-check.js';
import { KNOWN_PORTS, type KnownPort } from './known-ports.js';

/** What `framework-cli doctor` reports. */
export interface DoctorReport {
  /** False when a required check is `missing`. */
  ok: boolean;
  checks: DoctorCheck[];
}

export interface RunDoctorOptions {
  /** The environment to read addresses from (OPA_URL, OLLAMA_HOST, KV_URL, ...). */
  env: NodeJS.ProcessEnv;
  /** Where relative paths (VECTOR_STORE_DIR) start; default the working directory. */
  cwd?: string;
  /** Deadline of each network probe; default 1500 ms. */
  timeoutMs?: number;
  /** The default ports to check; default every port of the component table. */
  ports?: readonly KnownPort[];
}

/**
 * Runs every check at once and collects them in a fixed order: Node, Redis,
 * model runtime, model store, policy engine, Guardian (when GUARDIAN_URL is
 * set), Semantic Layer, vector store, Docker, then each default port.
 *
 * @example
 * const report = await runDoctor({ env: process.env });
 * if (!report.ok) process.exitCode = 1;
 */
export async function runDoctor(options: RunDoctorOptions): Promise<DoctorReport> {
  const { env } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const probe = { env, timeoutMs };
  const pending: Promise<DoctorCheck | undefined>[] = [
    Promise.resolve(checkNode()),
    checkRedis(probe),
    checkModelRuntime(probe),
    checkModelStore({ env }),
    checkPolicyEngine(probe),
    checkGuardian(probe),
    checkSemanticLayer(probe),
    checkMemoryService(probe),
    checkVectorStore({ ...probe, ...(options.cwd === undefined ? {} : { cwd: options.cwd }) }),
    checkDocker({ timeoutMs: Math.max(timeoutMs, 3_000) }),
    ...(options.ports ?? KNOWN_PORTS).map((known) => checkPort({ known, timeoutMs })),
  ];
  const settled = await Promise.allSettled(pending);
  const checks = settled.flatMap((outcome, index): DoctorCheck[] => {
    if (outcome.status === 'fulfilled') return outcome.value ? [outcome.value] : [];
    // A check that throws is a bug in the check, not in the machine; still report it.
    const reason = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
    return [checkResult(`check #${index + 1}`, 'warn', `the check failed: ${reason}`, { required: false })];
  });
  return { ok: !checks.some((c) => c.required && c.status === 'missing'), checks };
}
