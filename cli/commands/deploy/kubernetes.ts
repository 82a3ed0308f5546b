import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { JsonCommand } from '../../json-command.js';
import type { KubernetesOutput } from '../../../runtime/deploy/write-kubernetes.js';
import { failWith } from '../../fail-with.js';

export default class DeployKubernetes extends JsonCommand {
  static override description =
    "Write the project's Kubernetes manifests and a Helm chart with the same objects, from the containers model of compose.yaml: a Deployment " +
    '(a StatefulSet with a claim where state lives: Redis, the model cache, the vector store) and a Service per service, probes on each health ' +
    'endpoint, resources, non-root read-only containers, ConfigMaps for policies and agent cards, a Secret for the A2A keys and memory token ' +
    '(written mode 0600, never printed), a PodDisruptionBudget and a HorizontalPodAutoscaler for agents whose sessions are in Redis. Applies nothing: ' +
    'kubectl apply -f <out>/kubernetes, or helm install <release> <out>/helm/<project> -f <out>/helm/secrets.values.yaml.';

  static override examples = [
    '<%= config.bin %> deploy kubernetes',
    '<%= config.bin %> deploy kubernetes --dir projects/team --namespace agents --out /tmp/team-k8s --json',
    '<%= config.bin %> deploy kubernetes --registry registry.example.com/team',
  ];

  static override enableJsonFlag = true;

  static override flags = {
    dir: Flags.directory({ description: 'project root (default: the current directory)', exists: true }),
    out: Flags.string({ description: 'folder to write kubernetes/ and helm/ into (default: <project>/deploy)' }),
    namespace: Flags.string({ description: 'namespace of every object (and a Namespace manifest); default: none, kubectl picks' }),
    registry: Flags.string({ description: 'registry path the images are pushed to, put in front of their names (for example registry.example.com/team)' }),
  };

  async run(): Promise<KubernetesOutput> {
    const { flags } = await this.parse(DeployKubernetes);
    const root = resolve(flags.dir ?? process.cwd());
    if (flags.namespace !== undefined && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(flags.namespace)) {
      this.error(
        `--namespace ${JSON.stringify(flags.namespace)} is not a Kubernetes namespace name: lower-case letters, digits and "-", at most 63 characters.`,
        {
          exit: 2,
          code: 'invalid_arguments',
        },
      );
    }
    if (flags.registry !== undefined && !/^[a-z0-9]([a-z0-9.:-]*[a-z0-9])?(\/[a-z0-9]([a-z0-9._-]*[a-z0-9])?)*\/?$/.test(flags.registry)) {
      this.error(`--registry ${JSON.stringify(flags.registry)} is not a registry path such as registry.example.com:5000/team.`, {
        exit: 2,
        code: 'invalid_arguments',
      });
    }
    let output: KubernetesOutput;
    try {
      const [{ readDeployProject }, { writeKubernetes }] = await Promise.all([
        import('../../../runtime/deploy/deploy-project.js'),
        import('../../../runtime/deploy/write-kubernetes.js'),
      ]);
      const project = await readDeployProject({ root });
      output = await writeKubernetes({
        project,
        out: resolve(flags.out ?? resolve(root, 'deploy')),
        toolkitVersion: this.config.version,
        ...(flags.namespace ? { namespace: flags.namespace } : {}),
        ...(flags.registry ? { registry: flags.registry } : {}),
      });
    } catch (error) {
      failWith(this, error);
    }
    if (!this.jsonEnabled()) {
      this.log(`Wrote ${output.objects.length} Kubernetes objects to ${output.out}/kubernetes and the Helm chart ${output.chart}.`);
      this.log(`Secrets (mode 0600, keep out of version control): ${output.secretFiles.join(', ')}`);
      if (output.singleReplicaAgents.length > 0) {
        this.log(
          `One replica, no autoscaling, for ${output.singleReplicaAgents.join(', ')}: their sessions are in process memory (a swarm keeps them in Redis).`,
        );
      }
      this.log('Next: push the images (built by framework-cli up --containers) where the cluster pulls from, then:');
      this.log(`  kubectl apply -f ${output.out}/kubernetes`);
      this.log(`  or: helm install ${output.chart.split('/').pop()} ${output.chart} -f ${output.out}/helm/secrets.values.yaml`);
    }
    return output;
  }
}
