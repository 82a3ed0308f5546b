import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PolicyErrorCode } from '../errors.js';
import type { ModuleSource } from '../compiler/compile.js';
import type { PolicySource } from './policy-files.js';

/** What the server sends a decision worker. Values are JSON text. */
export type WorkerRequest =
  | { type: 'load'; generation: number; modules: ModuleSource[]; data: string | undefined }
  | (EvalRequestBase & { kind: 'data'; path: string[] })
  | (EvalRequestBase & { kind: 'query'; query: string });

/** What every evaluation request carries. */
interface EvalRequestBase {
  type: 'eval';
  id: number;
  generation: number;
  input: string | undefined;
  strict: boolean;
  /** Milliseconds the evaluation may still take (its network waits included); the pool terminates the worker at the deadline anyway. */
  budgetMs: number;
  /** Whether network builtins may run, or why not. */
  network: 'allow' | { refuse: string };
}

/** What a decision worker answers: the result as JSON text (absent when undefined), or the evaluation error. */
export type WorkerReply =
  { id: number; ok: true; result: string | undefined } | { id: number; ok: false; code: PolicyErrorCode | string; message: string; detail?: string };

/** The compiled set a decision is evaluated against, as the worker needs it. */
export interface PoolPolicySet {
  generation: number;
  modules: readonly PolicySource[];
  /** The base data document as JSON text. */
  dataJson: string | undefined;
}

export type PoolDecision = { kind: 'data'; path: string[] } | { kind: 'query'; query: string };

/** A decision ran past the evaluation budget; its worker was stopped. */
export class BudgetExceededError extends Error {
  readonly budgetMs: number;
  constructor(budgetMs: number) {
    super(`caller cancelled query execution: the evaluation budget of ${budgetMs} ms was spent`);
    this.name = 'BudgetExceededError';
    this.budgetMs = budgetMs;
  }
}

/** The worker could not evaluate the decision (its evaluation error, as the in-process engine would raise it). */
export class WorkerEvalError extends Error {
  readonly code: string;
  readonly detail: string;
  constructor(code: string, message: string, detail: string | undefined) {
    super(message);
    this.name = 'WorkerEvalError';
    this.code = code;
    this.detail = detail ?? message;
  }
}

interface Job {
  set: PoolPolicySet;
  decision: PoolDecision;
  input: string | undefined;
  strict: boolean;
  deadline: number;
  budgetMs: number;
  network: 'allow' | { refuse: string };
  resolve: (result: { json: string | undefined }) => void;
  reject: (error: unknown) => void;
}

class Slot {
  worker: Worker | undefined;
  generation = -1;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
}

export interface DecisionPoolOptions {
  /** Workers evaluating at once; default 2. */
  size?: number;
  /** The compiled worker script; default `decision-worker.js` beside this module. */
  script?: URL;
}

const DEFAULT_SCRIPT = new URL('./decision-worker.js', import.meta.url);

/**
 * A small pool of worker threads that evaluate the decisions too costly for
 * the event loop. Each worker holds a compiled copy of the policy set, loaded
 * again when the set's generation changes (policy or data writes, reloads).
 * A decision still running at its deadline gets {@link BudgetExceededError}
 * and its worker is terminated (a synchronous evaluation cannot be
 * interrupted otherwise); a fresh one starts for the next decision.
 * Workers start on first use and are unref'd, so an idle pool never holds the process open.
 */
export class DecisionPool {
  readonly size: number;
  readonly #script: URL;
  readonly #slots: Slot[];
  readonly #queue: Job[] = [];
  #nextId = 1;
  #closed = false;
  /** Decisions handed over, and how many of those ran out of budget (for /metrics). */
  handedOver = 0;
  timedOut = 0;

  constructor(options: DecisionPoolOptions = {}) {
    this.size = Math.max(1, options.size ?? 2);
    this.#script = options.script ?? DEFAULT_SCRIPT;
    this.#slots = Array.from({ length: this.size }, () => new Slot());
  }

  /** False when the worker script is missing (running the TypeScript sources without a build). */
  static available(script: URL = DEFAULT_SCRIPT): boolean {
    return existsSync(fileURLToPath(script));
  }

  /** Evaluates a decision in a worker; the result as JSON text (undefined when the document is undefined). Traced decisions (`?explain`) never come here. */
  evaluate(
    set: PoolPolicySet,
    decision: PoolDecision,
    options: { input: string | undefined; strict: boolean; budgetMs: number; deadline: number; network: 'allow' | { refuse: string } },
  ): Promise<{ json: string | undefined }> {
    if (this.#closed) return Promise.reject(new Error('the decision pool is closed'));
    this.handedOver++;
    return new Promise((resolve, reject) => {
      const job: Job = { set, decision, ...options, resolve, reject };
      this.#queue.push(job);
      this.#pump();
      if (this.#queue.includes(job)) {
        // Every worker is busy: a job still waiting at its deadline is answered then, not when a worker frees up.
        const timer = setTimeout(
          () => {
            const index = this.#queue.indexOf(job);
            if (index < 0) return;
            this.#queue.splice(index, 1);
            this.timedOut++;
            reject(new BudgetExceededError(job.budgetMs));
          },
          Math.max(0, job.deadline - performance.now()),
        );
        timer.unref();
        const settle =
          <T>(f: (v: T) => void) =>
          (v: T) => {
            clearTimeout(timer);
            f(v);
          };
        job.resolve = settle(resolve);
        job.reject = settle(reject);
      }
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new Error('the policy server is stopping'));
    await Promise.all(
      this.#slots.map(async (slot) => {
        clearTimeout(slot.timer);
        slot.job?.reject(new Error('the policy server is stopping'));
        slot.job = undefined;
        const worker = slot.worker;
        slot.worker = undefined;
        await worker?.terminate();
      }),
    );
  }

  #pump(): void {
    for (const slot of this.#slots) {
      if (slot.job) continue;
      const job = this.#queue.shift();
      if (!job) return;
      const left = job.deadline - performance.now();
      if (left <= 0) {
        this.timedOut++;
        job.reject(new BudgetExceededError(job.budgetMs));
        continue;
      }
      this.#run(slot, job, left);
    }
  }

  #run(slot: Slot, job: Job, left: number): void {
    let worker = slot.worker;
    if (!worker) worker = this.#start(slot);
    slot.job = job;
    if (slot.generation !== job.set.generation) {
      const modules = job.set.modules.map((m): ModuleSource => ({
        file: m.id,
        source: m.source,
        ...(m.regoVersion === undefined ? {} : { regoVersion: m.regoVersion }),
      }));
      worker.postMessage({ type: 'load', generation: job.set.generation, modules, data: job.set.dataJson } satisfies WorkerRequest);
      slot.generation = job.set.generation;
    }
    const id = this.#nextId++;
    const base = { type: 'eval' as const, id, generation: job.set.generation, input: job.input, strict: job.strict, budgetMs: left, network: job.network };
    worker.postMessage(
      (job.decision.kind === 'data'
        ? { ...base, kind: 'data', path: job.decision.path }
        : { ...base, kind: 'query', query: job.decision.query }) satisfies WorkerRequest,
    );
    worker.ref();
    slot.timer = setTimeout(() => {
      // Still evaluating at the deadline: stop the thread; the next decision gets a fresh one.
      this.timedOut++;
      const stuck = slot.worker;
      this.#vacate(slot);
      slot.worker = undefined;
      slot.generation = -1;
      void stuck?.terminate();
      job.reject(new BudgetExceededError(job.budgetMs));
      this.#pump();
    }, left);
  }

  #start(slot: Slot): Worker {
    const worker = new Worker(this.#script, { execArgv: workerExecArgv() });
    slot.worker = worker;
    slot.generation = -1;
    worker.unref();
    worker.on('message', (reply: WorkerReply) => {
      const job = slot.job;
      if (slot.worker !== worker || !job) return;
      this.#vacate(slot);
      if (reply.ok) job.resolve({ json: reply.result });
      else if (reply.code === 'eval_cancel_error') {
        // The worker stopped itself at the budget (a network wait ended by it, or the step clock).
        this.timedOut++;
        job.reject(new BudgetExceededError(job.budgetMs));
      } else job.reject(new WorkerEvalError(reply.code, reply.message, reply.detail));
      this.#pump();
    });
    const lost = (error: Error) => {
      if (slot.worker !== worker) return;
      const job = slot.job;
      this.#vacate(slot);
      slot.worker = undefined;
      slot.generation = -1;
      job?.reject(error);
      this.#pump();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the decision worker exited with code ${code}`)));
    return worker;
  }

  #vacate(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.job = undefined;
    slot.worker?.unref();
  }
}

/** The parent's Node flags, less `--input-type` (a worker started from a file refuses it). */
function workerExecArgv(): string[] {
  const args: string[] = [];
  for (let i = 0; i < process.execArgv.length; i++) {
    const arg = process.execArgv[i]!;
    if (arg === '--input-type') i++;
    else if (!arg.startsWith('--input-type=')) args.push(arg);
  }
  return args;
}
