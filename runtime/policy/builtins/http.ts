/**
 * http.send: the engine makes no network calls. The request object is
 * validated as OPA does (so malformed requests fail with OPA's type error);
 * a valid request raises `unsupported`.
 */
import { unsupported } from '../errors.js';
import { RegoSet } from '../value.js';
import { formatValue } from '../value-format.js';
import { asObject, type BuiltinDefinition, BuiltinError } from './registry.js';

const REQUIRED = ['method', 'url'];

export const httpBuiltins: BuiltinDefinition[] = [
  {
    name: 'http.send',
    args: ['object'],
    result: 'object',
    nondeterministic: true,
    impl: ([req], ctx) => {
      const obj = asObject(req, 1);
      const missing = REQUIRED.filter((k) => !obj.has(k));
      if (missing.length > 0) {
        throw BuiltinError.type(`operand 1 missing required request parameters(s): ${formatValue(RegoSet.of(missing))}`);
      }
      throw unsupported('builtin function http.send (network access)', ctx.location);
    },
  },
];
