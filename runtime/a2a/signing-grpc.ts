import * as grpc from '@grpc/grpc-js';
import { signRequest } from './signing/request-signature.js';
import type { SigningKey } from './signing/signing-key.js';

/**
 * A gRPC client interceptor that signs every call from `source` to `target`
 * with `key` (FW1-HMAC-SHA256, the scheme of the HTTP bindings): method
 * `POST`, the RPC's path and the SHA-256 of the request message's exact
 * bytes, sent as metadata. The call's metadata leaves only once its message
 * is known, so the signature covers what is sent. Without a key, calls go
 * unsigned (a development set-up where validation is off).
 */
export function signingInterceptor(options: { source: string; target: string; key: SigningKey | undefined }): grpc.Interceptor {
  return (callOptions, nextCall) => {
    const key = options.key;
    if (!key) return new grpc.InterceptingCall(nextCall(callOptions));
    const method = callOptions.method_definition;
    let started: { metadata: grpc.Metadata; listener: grpc.Listener; next: (metadata: grpc.Metadata, listener: grpc.Listener) => void } | undefined;
    return new grpc.InterceptingCall(nextCall(callOptions), {
      start(metadata, listener, next) {
        started = { metadata, listener, next };
      },
      sendMessage(message, next) {
        const body = method.requestSerialize(message);
        const headers = signRequest({ method: 'POST', path: method.path, body, source: options.source, target: options.target, key });
        for (const [name, value] of Object.entries(headers)) started!.metadata.set(name, value);
        started!.next(started!.metadata, started!.listener);
        next(message);
      },
    });
  };
}
