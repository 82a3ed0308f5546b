import { createHash } from 'node:crypto';
import { DEFAULT_CHAT_MODEL, DEFAULT_EMBEDDING_MODEL } from '../core/defaults.js';
import { PROJECT_PATHS } from '../scaffold/project-services.js';
import { APP_DIR, SECRETS_DIR, type ConfigFile, type DeployProject, type DeployService } from './deploy-project.js';

/** A Kubernetes object as plain data. */
export type KubeObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> } } & Record<
  string,
  unknown
>;

/** CPU and memory of a container. */
export interface Resources {
  requests: { cpu: string; memory: string };
  limits: { cpu: string; memory: string };
}

/** What a user tunes per service (the Helm chart's `values.yaml` has the same). */
export interface ServiceValues {
  replicas: number;
  resources: Resources;
  /** Agents whose sessions are shared: the HorizontalPodAutoscaler's bounds. */
  autoscaling?: { minReplicas: number; maxReplicas: number; targetCPUUtilizationPercentage: number };
  /** StatefulSets: the size of each volume claim. */
  storage?: Record<string, string>;
}

/** The tunable values of a deployment: images, pull policy, per-service values. */
export interface DeployValues {
  images: { toolkit: string; redis: string };
  imagePullPolicy: 'IfNotPresent' | 'Always' | 'Never';
  services: Record<string, ServiceValues>;
}

/**
 * Where the objects take a tunable value from. Plain manifests put the value
 * itself; the Helm chart puts a marker its writer turns into a template
 * expression (see helm-chart.ts), so both come from this one builder.
 */
export interface ValueSource {
  image(which: 'toolkit' | 'redis'): unknown;
  imagePullPolicy(): unknown;
  replicas(service: string): unknown;
  resources(service: string): unknown;
  autoscaling(service: string, field: 'minReplicas' | 'maxReplicas' | 'targetCPUUtilizationPercentage'): unknown;
  storage(service: string, volume: string): unknown;
  namespace(): unknown;
  secret(name: string): unknown;
}

/** The toolkit image's `node` user, and the group volumes are made writable for. */
const RUN_AS = 1000;
const POLICIES_MOUNT = `${APP_DIR}/${PROJECT_PATHS.policies}`;
const CARDS_MOUNT = `${APP_DIR}/${PROJECT_PATHS.cards}`;

const RESOURCES: Record<DeployService['kind'], Resources> = {
  model: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '2', memory: '4Gi' } },
  policy: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
  guardian: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
  'semantic-layer': { requests: { cpu: '200m', memory: '256Mi' }, limits: { cpu: '1', memory: '1Gi' } },
  memory: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
  agent: { requests: { cpu: '100m', memory: '192Mi' }, limits: { cpu: '1', memory: '512Mi' } },
  kv: { requests: { cpu: '50m', memory: '64Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
};
const STORAGE: Record<string, string> = { 'model-cache': '10Gi', 'vector-store': '1Gi', 'kv-data': '1Gi' };

/** True when a service keeps state in a volume: it runs as a StatefulSet with a claim per replica. */
export function isStateful(service: DeployService): boolean {
  return service.volumes.length > 0;
}

/** True for agents that scale: their sessions are in the key-value store. */
export function scales(service: DeployService): boolean {
  return service.kind === 'agent' && service.sharedSessions;
}

/**
 * The default values of a project: its images (with `registry/` in front
 * when given), two replicas for agents that share sessions (one otherwise,
 * and one for everything else), resources by kind, 1 Gi claims (10 Gi for models).
 */
export function defaultValues(options: { project: DeployProject; registry?: string }): DeployValues {
  const prefix = options.registry ? `${options.registry.replace(/\/+$/, '')}/` : '';
  const services: Record<string, ServiceValues> = {};
  for (const service of options.project.services) {
    services[service.name] = {
      replicas: scales(service) ? 2 : 1,
      resources: RESOURCES[service.kind],
      ...(scales(service) ? { autoscaling: { minReplicas: 2, maxReplicas: 6, targetCPUUtilizationPercentage: 70 } } : {}),
      ...(isStateful(service) ? { storage: Object.fromEntries(service.volumes.map((v) => [v.name, STORAGE[v.name] ?? '1Gi'])) } : {}),
    };
  }
  return {
    images: { toolkit: prefix + options.project.images.toolkit, redis: prefix + options.project.images.redis },
    imagePullPolicy: 'IfNotPresent',
    services,
  };
}

/** Values read straight from `values` (plain manifests); `namespace` undefined leaves it out. */
export function literalValues(options: { values: DeployValues; namespace?: string; secrets: Record<string, string> }): ValueSource {
  const { values } = options;
  const of = (service: string) => values.services[service]!;
  return {
    image: (which) => values.images[which],
    imagePullPolicy: () => values.imagePullPolicy,
    replicas: (service) => of(service).replicas,
    resources: (service) => of(service).resources,
    autoscaling: (service, field) => of(service).autoscaling![field],
    storage: (service, volume) => of(service).storage![volume],
    namespace: () => options.namespace,
    secret: (name) => Buffer.from(options.secrets[name] ?? '').toString('base64'),
  };
}

/**
 * The Kubernetes objects of a project: per service a Deployment (or a
 * StatefulSet with a claim per volume where state lives: Redis, the model
 * cache, the vector store) and a Service; probes on each health endpoint;
 * resources; non-root, read-only root file systems (emptyDirs for /tmp and
 * the toolkit's work folder); ConfigMaps for the policies and agent cards;
 * one Secret with the A2A keys and memory token; a PodDisruptionBudget and a
 * HorizontalPodAutoscaler for each agent that shares its sessions.
 *
 * @example
 * const objects = kubernetesObjects({ project, values: literalValues({ values: defaultValues({ project }), secrets: project.secrets }) });
 */
export function kubernetesObjects(options: { project: DeployProject; values: ValueSource }): KubeObject[] {
  const { project, values } = options;
  const policies = configMapName(project, 'policies');
  const cards = configMapName(project, 'agent-cards');
  const objects: KubeObject[] = [
    configMap({ project, values, name: policies, files: project.policies }),
    configMap({ project, values, name: cards, files: project.cards }),
  ];
  if (Object.keys(project.secrets).length > 0) {
    objects.push({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: meta({ project, values, name: secretName(project) }),
      type: 'Opaque',
      data: Object.fromEntries(Object.keys(project.secrets).map((name) => [name, values.secret(name)])),
    });
  }
  const configHash = createHash('sha256')
    .update(JSON.stringify([project.policies, project.cards]))
    .digest('hex')
    .slice(0, 16);
  for (const service of project.services) {
    objects.push(...serviceObjects({ project, values, service, configHash, policies, cards }));
  }
  return objects;
}

/** The Secret holding the project's secrets. */
export function secretName(project: DeployProject): string {
  return `${project.name}-secrets`;
}

function configMapName(project: DeployProject, what: string): string {
  return `${project.name}-${what}`;
}

function labels(project: DeployProject, service?: DeployService): Record<string, string> {
  return {
    'app.kubernetes.io/part-of': project.name,
    'app.kubernetes.io/managed-by': 'framework-cli',
    ...(service ? { 'app.kubernetes.io/name': service.name, 'app.kubernetes.io/component': service.kind } : {}),
  };
}

function selector(project: DeployProject, service: DeployService): Record<string, string> {
  return { 'app.kubernetes.io/part-of': project.name, 'app.kubernetes.io/name': service.name };
}

function meta(options: { project: DeployProject; values: ValueSource; name: string; service?: DeployService }): KubeObject['metadata'] {
  const namespace = options.values.namespace();
  return { name: options.name, ...(namespace === undefined ? {} : { namespace: namespace as string }), labels: labels(options.project, options.service) };
}

/** ConfigMap keys cannot hold "/": each file gets a flat key and its path back through `items`. */
function configKey(path: string): string {
  return path.replaceAll('/', '__');
}

function configMap(options: { project: DeployProject; values: ValueSource; name: string; files: ConfigFile[] }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta(options),
    data: Object.fromEntries(options.files.map((f) => [configKey(f.path), f.text])),
  };
}

function configVolume(name: string, configMap: string, files: ConfigFile[]): Record<string, unknown> {
  return { name, configMap: { name: configMap, items: files.map((f) => ({ key: configKey(f.path), path: f.path })) } };
}

function serviceObjects(options: {
  project: DeployProject;
  values: ValueSource;
  service: DeployService;
  configHash: string;
  policies: string;
  cards: string;
}): KubeObject[] {
  const { project, values, service } = options;
  const stateful = isStateful(service);
  const volumes: Record<string, unknown>[] = [];
  const mounts: Record<string, unknown>[] = [];
  // Read-only root file system: what the services write goes to these.
  if (service.image === 'toolkit') {
    volumes.push({ name: 'tmp', emptyDir: {} }, { name: 'work', emptyDir: {} });
    mounts.push({ name: 'tmp', mountPath: '/tmp' }, { name: 'work', mountPath: `${APP_DIR}/.framework` });
  }
  if (service.kind === 'policy') {
    volumes.push(configVolume('policies', options.policies, project.policies));
    mounts.push({ name: 'policies', mountPath: POLICIES_MOUNT, readOnly: true });
  }
  if (service.kind === 'agent' || service.kind === 'semantic-layer') {
    volumes.push(configVolume('agent-cards', options.cards, project.cards));
    mounts.push({ name: 'agent-cards', mountPath: CARDS_MOUNT, readOnly: true });
  }
  if (service.secrets.length > 0) {
    volumes.push({
      name: 'secrets',
      secret: { secretName: secretName(project), defaultMode: 0o440, items: service.secrets.map((s) => ({ key: s, path: s })) },
    });
    mounts.push({ name: 'secrets', mountPath: SECRETS_DIR, readOnly: true });
  }
  for (const volume of service.volumes) mounts.push({ name: volume.name, mountPath: volume.mountPath });

  const container: Record<string, unknown> = {
    name: service.name,
    image: values.image(service.image),
    imagePullPolicy: values.imagePullPolicy(),
    ...(service.command ? { args: service.command } : {}),
    ports: [{ name: 'service', containerPort: service.port, protocol: 'TCP' }],
    ...(Object.keys(service.env).length > 0 ? { env: Object.entries(service.env).map(([name, value]) => ({ name, value })) } : {}),
    ...probes(service),
    resources: values.resources(service.name),
    securityContext: {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      runAsUser: RUN_AS,
      runAsGroup: RUN_AS,
      capabilities: { drop: ['ALL'] },
    },
    volumeMounts: mounts,
  };
  const pod: Record<string, unknown> = {
    metadata: { labels: labels(project, service), annotations: { 'framework-cli/config-hash': options.configHash } },
    spec: {
      automountServiceAccountToken: false,
      securityContext: { runAsNonRoot: true, fsGroup: RUN_AS, seccompProfile: { type: 'RuntimeDefault' } },
      ...(service.kind === 'model' ? { initContainers: [modelPull({ container, values })] } : {}),
      containers: [container],
      volumes,
    },
  };
  const objects: KubeObject[] = [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta({ project, values, name: service.name, service }),
      spec: { selector: selector(project, service), ports: [{ name: 'service', port: service.port, targetPort: 'service', protocol: 'TCP' }] },
    },
  ];
  const spec: Record<string, unknown> = {
    replicas: values.replicas(service.name),
    selector: { matchLabels: selector(project, service) },
    template: pod,
  };
  if (stateful) {
    // The StatefulSet's own headless Service (stable pod names); the one above balances.
    objects.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta({ project, values, name: `${service.name}-pods`, service }),
      spec: {
        clusterIP: 'None',
        selector: selector(project, service),
        ports: [{ name: 'service', port: service.port, targetPort: 'service', protocol: 'TCP' }],
      },
    });
    objects.push({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: meta({ project, values, name: service.name, service }),
      spec: {
        ...spec,
        serviceName: `${service.name}-pods`,
        volumeClaimTemplates: service.volumes.map((v) => ({
          metadata: { name: v.name, labels: labels(project, service) },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: values.storage(service.name, v.name) } } },
        })),
      },
    });
  } else {
    objects.push({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta({ project, values, name: service.name, service }),
      spec: { ...spec, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } },
    });
  }
  if (scales(service)) {
    objects.push(
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: meta({ project, values, name: service.name, service }),
        spec: { minAvailable: 1, selector: { matchLabels: selector(project, service) } },
      },
      {
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: meta({ project, values, name: service.name, service }),
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: service.name },
          minReplicas: values.autoscaling(service.name, 'minReplicas'),
          maxReplicas: values.autoscaling(service.name, 'maxReplicas'),
          metrics: [
            {
              type: 'Resource',
              resource: {
                name: 'cpu',
                target: { type: 'Utilization', averageUtilization: values.autoscaling(service.name, 'targetCPUUtilizationPercentage') },
              },
            },
          ],
        },
      },
    );
  }
  return objects;
}

/** Liveness and readiness on the health endpoint (Redis: `redis-cli ping`); a startup probe gives a slow first start time. */
function probes(service: DeployService): Record<string, unknown> {
  const check =
    service.healthPath === null ? { exec: { command: ['redis-cli', 'ping'] } } : { httpGet: { path: service.healthPath, port: 'service', scheme: 'HTTP' } };
  return {
    startupProbe: { ...check, periodSeconds: 5, timeoutSeconds: 5, failureThreshold: 60 },
    livenessProbe: { ...check, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3 },
    readinessProbe: { ...check, periodSeconds: 5, timeoutSeconds: 5, failureThreshold: 2 },
  };
}

/** The model runtime's claim starts empty: pull the default chat and embedding models first (a no-op when already there). */
function modelPull(options: { container: Record<string, unknown>; values: ValueSource }): Record<string, unknown> {
  const { container } = options;
  return {
    name: 'model-pull',
    image: container.image,
    imagePullPolicy: container.imagePullPolicy,
    command: ['sh', '-c', `framework-cli model pull ${DEFAULT_CHAT_MODEL} && framework-cli model pull ${DEFAULT_EMBEDDING_MODEL}`],
    resources: container.resources,
    securityContext: container.securityContext,
    volumeMounts: container.volumeMounts,
  };
}
