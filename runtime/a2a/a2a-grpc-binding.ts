import type { AgentCard, SendMessageRequest } from '@a2a-js/sdk';
import { A2AError } from '@a2a-js/sdk/errors';
import { LegacyA2AService, legacyGrpcService } from '@a2a-js/sdk/compat/v0_3/server/grpc';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import * as grpc from '@grpc/grpc-js';
import { FrameworkError } from '../core/framework-error.js';
import { errorFields, type Logger } from '../core/logger.js';
import { callerUser } from './a2a-admission.js';
import { inServerRpcSpan } from './grpc-trace-context.js';
import { A2A_GRPC_BINDING, A2A_LEGACY_PROTOCOL_VERSION, A2A_PROTOCOL_VERSION, cardUrl } from './agent-card.js';
import type { AdmittedCaller, A2ARequestGuard } from './request-guard.js';

export interface GrpcBindingOptions {
  card: AgentCard;
  requestHandler: A2ARequestHandler;
  /** The same signature and policy checks as the HTTP bindings. */
  guard: A2ARequestGuard;
  logger: Logger;
  /** Largest request message accepted, in bytes (the HTTP bindings' body limit). */
  maxBodyBytes: number;
  host: string;
  /** 0 picks a free port. */
  port: number;
}

export interface GrpcListening {
  readonly port: number;
  /** The interface URL the card declares: `host:port`, the target a gRPC client dials. */
  readonly url: string;
  close(): Promise<void>;
}

type Definition = Record<string, grpc.MethodDefinition<object, unknown>>;
type SdkService = Record<string, (...args: unknown[]) => unknown>;

/** One A2A gRPC service on the port: its descriptor, the SDK's implementation, and what the guard and the policy read of it. */
interface ServiceSpec {
  descriptor: Definition;
  make: typeof grpcService | typeof legacyGrpcService;
  /** The `a2a-version` metadata this service answers (absent is accepted). */
  versionAccepted(version: string): boolean;
  version: string;
  /** What the policy sees: the message text of a send, else the operation's 1.0 method name (as on every binding). */
  policySubject(method: string, request: object): string;
}

/** The v0.3 service's method names that differ from the 1.0 ones the policy knows. */
const LEGACY_POLICY_NAMES: Readonly<Record<string, string>> = {
  taskSubscription: 'SubscribeToTask',
  listTaskPushNotificationConfig: 'ListTaskPushNotificationConfigs',
  getAgentCard: 'GetExtendedAgentCard',
};

const SERVICES: readonly ServiceSpec[] = [
  {
    descriptor: A2AService as unknown as Definition,
    make: grpcService,
    version: A2A_PROTOCOL_VERSION,
    versionAccepted: (version) => version === A2A_PROTOCOL_VERSION,
    policySubject: (method, request) => (SEND_METHODS.has(method) ? messageText(request as SendMessageRequest) : methodName(method)),
  },
  {
    // `a2a.v1.A2AService`, the 0.3 proto: the SDK's compatibility layer over the same request handler.
    descriptor: LegacyA2AService as unknown as Definition,
    make: legacyGrpcService,
    version: A2A_LEGACY_PROTOCOL_VERSION,
    versionAccepted: (version) => version === A2A_LEGACY_PROTOCOL_VERSION || version.startsWith(`${A2A_LEGACY_PROTOCOL_VERSION}.`),
    policySubject: (method, request) =>
      SEND_METHODS.has(method) ? legacyMessageText(request as LegacySendRequest) : (LEGACY_POLICY_NAMES[method] ?? methodName(method)),
  },
];

/** Methods whose request carries a message: the policy reads its text, as on the HTTP bindings. */
const SEND_METHODS: ReadonlySet<string> = new Set(['sendMessage', 'sendStreamingMessage']);

/**
 * The A2A gRPC binding on its own HTTP/2 port: the 1.0 proto's
 * `lf.a2a.v1.A2AService` and the 0.3 proto's `a2a.v1.A2AService` (the
 * official SDK's service implementations, both over the agent's request
 * handler), behind the same guard as JSON-RPC and HTTP+JSON: every call is
 * signed with the FW1-HMAC-SHA256 scheme, its headers sent as gRPC metadata
 * (`x-framework-agent`, …), the canonical request being method `POST`, the
 * RPC's path (`/lf.a2a.v1.A2AService/SendMessage`) and the SHA-256 of the
 * request message's exact bytes; then the access policy is asked about the
 * message text (sends) or the 1.0 method name (everything else), as on the
 * other bindings. A refused signature is UNAUTHENTICATED, a denial
 * PERMISSION_DENIED; nothing reaches the SDK before both passed. The card
 * gains a `GRPC` interface at `host:port` for each protocol version. With
 * tracing on, every call is a SERVER span continuing the caller's W3C
 * `traceparent` from its metadata (`grpc-trace-context.ts`).
 */
export async function startGrpcBinding(options: GrpcBindingOptions): Promise<GrpcListening> {
  // The exact bytes of each request message, for its signature: the services' deserializers keep them.
  const rawBytes = new WeakMap<object, Buffer>();
  const callers = new WeakMap<object, AdmittedCaller>();
  const userBuilder = (call: object): Promise<ReturnType<typeof callerUser>> => {
    const caller = callers.get(call);
    // The guard ran first on every call; a call without a caller never reaches here.
    if (!caller) return Promise.reject(new Error('A2A gRPC call reached the SDK without passing the guard.'));
    return Promise.resolve(callerUser(caller));
  };

  const admit = async (
    spec: ServiceSpec,
    name: string,
    call: grpc.ServerUnaryCall<object, unknown> | grpc.ServerWritableStream<object, unknown>,
  ): Promise<void> => {
    const body = rawBytes.get(call.request);
    // Every request passes through the deserializer above; without its bytes there is nothing to check the signature over.
    if (body === undefined) throw new GrpcRefusal(grpc.status.INTERNAL, 'The request message bytes were not kept; the call is refused.');
    const caller = await options.guard.authenticate({
      method: 'POST',
      path: spec.descriptor[name]!.path,
      body,
      header: (header) => {
        const [value] = call.metadata.get(header);
        return value === undefined ? undefined : value.toString();
      },
    });
    await options.guard.authorize(caller, spec.policySubject(name, call.request));
    // The spec's mapping makes VersionNotSupportedError UNIMPLEMENTED on gRPC (the SDK sends FAILED_PRECONDITION).
    const [version] = call.metadata.get('a2a-version');
    if (version !== undefined && !spec.versionAccepted(String(version)))
      throw new GrpcRefusal(
        grpc.status.UNIMPLEMENTED,
        `The requested A2A protocol version '${String(version)}' is not supported by this service. Supported versions: ${spec.version}`,
      );
    callers.set(call, caller);
  };

  const server = new grpc.Server({
    'grpc.max_receive_message_length': options.maxBodyBytes,
    // Idle connections are closed, as on the HTTP port.
    'grpc.max_connection_idle_ms': 300_000,
  });
  for (const spec of SERVICES) {
    const definition: Definition = {};
    for (const [name, method] of Object.entries(spec.descriptor)) {
      definition[name] = {
        ...method,
        requestDeserialize: (bytes: Buffer) => {
          const request = method.requestDeserialize(bytes);
          rawBytes.set(request, bytes);
          return request;
        },
      };
    }
    const sdk = spec.make({ requestHandler: options.requestHandler, userBuilder }) as unknown as SdkService;
    const implementation: grpc.UntypedServiceImplementation = {};
    for (const [name, method] of Object.entries(spec.descriptor)) {
      implementation[name] = method.responseStream
        ? (call: grpc.ServerWritableStream<object, unknown>) =>
            inServerRpcSpan(method.path, call.metadata, (end) => {
              call.once('error', (error: Partial<grpc.StatusObject>) => end(error.code ?? grpc.status.INTERNAL, error.details));
              call.once('finish', () => end(grpc.status.OK));
              call.once('cancelled', () => end(grpc.status.CANCELLED));
              admit(spec, name, call).then(
                () => sdk[name]!(call),
                (error: unknown) => {
                  call.emit('error', refusal(error, options.logger));
                },
              );
            })
        : (call: grpc.ServerUnaryCall<object, unknown>, callback: grpc.sendUnaryData<unknown>) =>
            inServerRpcSpan(method.path, call.metadata, (end) => {
              call.once('cancelled', () => end(grpc.status.CANCELLED));
              const answer: grpc.sendUnaryData<unknown> = (error, value, ...rest) => {
                end(error ? (error.code ?? grpc.status.INTERNAL) : grpc.status.OK, error?.details);
                callback(error, value, ...rest);
              };
              admit(spec, name, call).then(
                () => sdk[name]!(call, answer),
                (error: unknown) => answer(refusal(error, options.logger), null),
              );
            });
    }
    server.addService(definition as grpc.ServiceDefinition, implementation);
  }
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      `${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}`,
      grpc.ServerCredentials.createInsecure(),
      (error, bound) => (error ? reject(error) : resolve(bound)),
    ),
  );
  const url = `${new URL(cardUrl(options.card)).hostname}:${port}`;
  for (const spec of SERVICES) options.card.supportedInterfaces.push({ url, protocolBinding: A2A_GRPC_BINDING, tenant: '', protocolVersion: spec.version });
  return {
    port,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.forceShutdown(), 5_000);
        timer.unref();
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

/** The 1.0 method name of a service method (`sendMessage` → `SendMessage`), what the policy sees for a non-send call. */
function methodName(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** What the policy sees of a send: the message's text parts, or its data parts as JSON, one per line (as on HTTP). */
function messageText(request: SendMessageRequest): string {
  const texts: string[] = [];
  for (const part of request.message?.parts ?? []) {
    if (part.content?.$case === 'text') texts.push(part.content.value);
    else if (part.content?.$case === 'data') texts.push(JSON.stringify(part.content.value));
  }
  return texts.join('\n');
}

/** The 0.3 proto's send request: the message is `request`, its parts `content`. */
interface LegacySendRequest {
  request?: { content?: { part?: { $case: 'text'; value: string } | { $case: 'data'; value: { data?: unknown } } | { $case: 'file' } }[] };
}

/** The same text of a 0.3 send. */
function legacyMessageText(request: LegacySendRequest): string {
  const texts: string[] = [];
  for (const { part } of request.request?.content ?? []) {
    if (part?.$case === 'text') texts.push(part.value);
    else if (part?.$case === 'data') texts.push(JSON.stringify(part.value.data ?? {}));
  }
  return texts.join('\n');
}

/** A refusal with its own gRPC status. */
class GrpcRefusal extends Error {
  constructor(
    readonly code: grpc.status,
    message: string,
  ) {
    super(message);
  }
}

/** The gRPC status of a refusal before the SDK: a bad signature, a denial, or (logged) anything else. */
function refusal(error: unknown, logger: Logger): Partial<grpc.StatusObject> {
  if (error instanceof GrpcRefusal) return { code: error.code, details: error.message };
  if (FrameworkError.isInstance(error)) {
    const code =
      error.code === 'signature_invalid'
        ? grpc.status.UNAUTHENTICATED
        : error.code === 'permission_denied'
          ? grpc.status.PERMISSION_DENIED
          : error.code === 'policy_unavailable' || error.code === 'store_unavailable'
            ? grpc.status.UNAVAILABLE
            : grpc.status.INTERNAL;
    if (code === grpc.status.INTERNAL) logger.error('A2A gRPC call failed before the handler', errorFields(error));
    return { code, details: error.message };
  }
  if (error instanceof A2AError) return { code: grpc.status.INVALID_ARGUMENT, details: error.message };
  logger.error('A2A gRPC call failed before the handler', errorFields(error));
  return { code: grpc.status.INTERNAL, details: 'Internal error.' };
}
