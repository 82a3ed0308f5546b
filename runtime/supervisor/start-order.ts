import { ConfigError, type ConfigIssue } from '../core/errors/config-error.js';
import { SERVICE_KINDS, type ServiceKind } from './project-file.js';

/** What `startOrder` needs of a service. */
export interface OrderedService {
  name: string;
  kind: ServiceKind;
  dependsOn: readonly string[];
}

/**
 * The order to start services in: every service after the ones it depends
 * on, and otherwise by kind (model → policy → guardian → semantic-layer →
 * memory → agent), then as listed. Throws `ConfigError` for duplicate names,
 * unknown dependencies and cycles (naming the cycle).
 *
 * @example
 * startOrder({ services: [planner, policy, guardian] }).map((s) => s.name); // ['policy', 'guardian', 'planner']
 */
export function startOrder<T extends OrderedService>(options: { services: readonly T[] }): T[] {
  const { services } = options;
  const issues: ConfigIssue[] = [];
  const byName = new Map<string, T>();
  for (const service of services) {
    if (byName.has(service.name)) issues.push({ variable: `services[${service.name}]`, message: 'the name is used by two services; names must be unique' });
    byName.set(service.name, service);
  }
  for (const service of services) {
    for (const dependency of service.dependsOn) {
      if (dependency === service.name) issues.push({ variable: `services[${service.name}].dependsOn`, message: 'a service cannot depend on itself' });
      else if (!byName.has(dependency)) {
        issues.push({
          variable: `services[${service.name}].dependsOn`,
          message: `"${dependency}" is not a service of this project (known: ${[...byName.keys()].join(', ') || 'none'})`,
        });
      }
    }
  }
  if (issues.length > 0) throw new ConfigError({ issues, context: 'Invalid services in .framework/project.json' });

  const rank = (s: T) => SERVICE_KINDS.indexOf(s.kind) * services.length + services.indexOf(s);
  const candidates = [...byName.values()].sort((a, b) => rank(a) - rank(b));
  const ordered: T[] = [];
  const done = new Set<string>();
  while (ordered.length < candidates.length) {
    const next = candidates.find((s) => !done.has(s.name) && s.dependsOn.every((d) => done.has(d)));
    if (next === undefined) {
      const cycle = findCycle(
        candidates.filter((s) => !done.has(s.name)),
        byName,
      );
      throw new ConfigError({
        issues: [{ variable: `services[${cycle[0]}].dependsOn`, message: `dependencies form a cycle: ${cycle.join(' → ')}; remove one of them` }],
        context: 'Invalid services in .framework/project.json',
      });
    }
    ordered.push(next);
    done.add(next.name);
  }
  return ordered;
}

/** A cycle among the services left, as names with the first repeated at the end. */
function findCycle<T extends OrderedService>(left: readonly T[], byName: ReadonlyMap<string, T>): string[] {
  const leftNames = new Set(left.map((s) => s.name));
  let current = left[0]!;
  const path: string[] = [];
  while (!path.includes(current.name)) {
    path.push(current.name);
    const next = current.dependsOn.find((d) => leftNames.has(d));
    current = byName.get(next!)!;
  }
  return [...path.slice(path.indexOf(current.name)), current.name];
}
