/** to_number. */
import { isNumber } from '../value.js';
import { parseNumberLiteral } from '../value-json.js';
import { BuiltinError, type BuiltinDefinition, operandTypeError } from './registry.js';

const GO_FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

export const castBuiltins: BuiltinDefinition[] = [
  {
    name: 'to_number',
    keepsNumberText: true,
    args: ['any'],
    result: 'number',
    impl: ([v]) => {
      if (v === null) return 0;
      if (typeof v === 'boolean') return v ? 1 : 0;
      // A number is returned as is, its text kept (to_number(1e3) prints 1e3 in OPA).
      if (isNumber(v)) return v;
      if (typeof v === 'string') {
        const lower = v.replace(/^[+-]+/, '').toLowerCase();
        if (lower === 'inf' || lower === 'infinity' || lower === 'nan') throw operandTypeError(1, v, 'valid number string');
        if (!GO_FLOAT.test(v)) throw new BuiltinError(`strconv.ParseFloat: parsing ${JSON.stringify(v)}: invalid syntax`);
        if (!Number.isFinite(Number(v.replace(/^\+/, '')))) {
          throw new BuiltinError(`strconv.ParseFloat: parsing ${JSON.stringify(v)}: value out of range`);
        }
        let text = v.startsWith('+') ? v.slice(1) : v;
        text = text.replace(/^(-?)\./, '$10.').replace(/\.(?=[eE]|$)/, '');
        return parseNumberLiteral(text);
      }
      throw operandTypeError(1, v ?? null, 'null', 'boolean', 'number', 'string');
    },
  },
];
