import { Processes, createWorkspace, freePort, startGuardianProcess, startPolicyEngine, testKey, type Service, type Workspace } from '../e2e/a2a-support.js';

/** The tutorial as processes: policy engine, Guardian, executor (A2A only) and planner, strict and signed, on free ports. */
export interface TutorialStack {
  planner: Service;
  stop(): Promise<void>;
  allStopped(): boolean;
}

/** Starts the tutorial stack; the planner plans without a model (the request's own steps, split at `;`). */
export async function startTutorialStack(): Promise<TutorialStack> {
  const processes = new Processes();
  let workspace: Workspace | undefined;
  try {
    const [plannerPort, executorPort] = [await freePort(), await freePort()];
    workspace = await createWorkspace({
      ports: { planner: plannerPort, executor: executorPort },
      keys: [testKey('planner-1', 'planner'), testKey('executor-1', 'executor')],
    });
    const policy = await startPolicyEngine(processes);
    const guardian = await startGuardianProcess(processes, policy.url);
    const common = { A2A_KEYS_FILE: workspace.keysFile, A2A_VALIDATION_MODE: 'strict', GUARDIAN_URL: guardian.url };
    await processes.start({
      name: 'executor',
      port: executorPort,
      args: ['serve', 'agent', '--example', 'executor', '--a2a-only', '--port', String(executorPort)],
      env: { ...common, AGENT_CARD: workspace.cardPath('executor') },
    });
    const planner = await processes.start({
      name: 'planner',
      port: plannerPort,
      args: ['serve', 'agent', '--example', 'planner', '--port', String(plannerPort)],
      env: { ...common, AGENT_CARD: workspace.cardPath('planner'), EXECUTOR_CARD: workspace.cardPath('executor') },
    });
    const created = workspace;
    return {
      planner,
      stop: async () => {
        await processes.stopAll();
        await created.remove();
      },
      allStopped: () => processes.allStopped(),
    };
  } catch (error) {
    await processes.stopAll();
    await workspace?.remove();
    throw error;
  }
}
