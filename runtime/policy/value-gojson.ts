/**
 * JSON text as OPA writes it: Go's `encoding/json` over OPA's `ast.JSON`
 * conversion. Object keys are sorted bytewise, sets become sorted arrays,
 * `<`, `>`, `&`, U+2028 and U+2029 are escaped (Go's HTML-safe default), and
 * a non-string object key becomes its own JSON text, escaped the same way
 * (`{["a&b"]: 1}` has the key `["a\u0026b"]`). Used by `json.marshal` and
 * wherever a value's object keys must become strings.
 */
import { foldDeep, SHALLOW } from './deep-fold.js';
import { formatNumber } from './value-format.js';
import { compareStrings, RegoDecimal, RegoObject, RegoSet, type Value } from './value.js';

const JSON_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A JSON string as Go's encoder writes it (HTML-safe; invalid UTF-8, here lone surrogates, as U+FFFD). */
export function goJSONString(s: string): string {
  const body = s.replace(/["\\\u0000-\u001f<>&\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, (c) => {
    const short = JSON_ESCAPES[c];
    if (short !== undefined) return short;
    const code = c.charCodeAt(0);
    return code >= 0xd800 && code <= 0xdfff ? '\\ufffd' : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return `"${body}"`;
}

/** Object entries as OPA hands them to Go: keys as strings, sorted bytewise; a later equal key wins. */
export function jsonEntries(o: RegoObject): Array<[string, Value]> {
  const byKey = new Map<string, Value>();
  for (const [k, v] of o.entries()) byKey.set(goJSONKey(k), v);
  return [...byKey].sort((a, b) => compareStrings(a[0], b[0]));
}

/** The JSON object key OPA makes of a Rego object key: a string as is, anything else its JSON text. */
export function goJSONKey(k: Value): string {
  return typeof k === 'string' ? k : goJSON(k);
}

/** Compact JSON text of a value, as `json.Marshal(ast.JSON(v))`. */
export function goJSON(v: Value): string {
  return goJSONAt(v, 0);
}

function goJSONAt(v: Value, depth: number): string {
  switch (typeof v) {
    case 'string':
      return goJSONString(v);
    case 'number':
    case 'bigint':
      return formatNumber(v);
    case 'boolean':
      return v ? 'true' : 'false';
    default: {
      if (v === null) return 'null';
      if (v instanceof RegoDecimal) return formatNumber(v);
      if (depth >= SHALLOW) return goJSONDeep(v);
      if (Array.isArray(v) || v instanceof RegoSet) {
        const items = Array.isArray(v) ? v : v.values();
        let out = '[';
        for (let i = 0; i < items.length; i++) out += (i === 0 ? '' : ',') + goJSONAt(items[i] as Value, depth + 1);
        return out + ']';
      }
      const entries = jsonEntries(v);
      let out = '{';
      for (let i = 0; i < entries.length; i++) {
        const [k, x] = entries[i] as [string, Value];
        out += (i === 0 ? '' : ',') + goJSONString(k) + ':' + goJSONAt(x, depth + 1);
      }
      return out + '}';
    }
  }
}

/** {@link goJSON} folded on an explicit stack (values nested past {@link SHALLOW}). */
function goJSONDeep(root: Value): string {
  return foldDeep<Value, string>(root, {
    open: (v) => (Array.isArray(v) ? v : v instanceof RegoSet ? v.values() : v instanceof RegoObject ? jsonEntries(v).map((e) => e[1]) : undefined),
    leaf: (v) => goJSONAt(v, 0),
    close: (v, _parts, texts) => {
      if (!(v instanceof RegoObject)) return '[' + texts.join(',') + ']';
      return (
        '{' +
        jsonEntries(v)
          .map(([k], i) => goJSONString(k) + ':' + (texts[i] as string))
          .join(',') +
        '}'
      );
    },
  });
}

const HTML_UNSAFE = /[<>&\u2028\u2029]/;
const HTML_UNSAFE_ALL = /[<>&\u2028\u2029]/g;

/**
 * JSON text with `<`, `>`, `&`, U+2028 and U+2029 written as `\u` escapes,
 * as Go's encoder (and so OPA's REST API) writes them. These characters
 * occur in JSON text only inside strings, so the text is rewritten as is,
 * without parsing it (and untouched when it holds none of them).
 */
export function htmlSafeJSON(text: string): string {
  if (!HTML_UNSAFE.test(text)) return text;
  return text.replace(HTML_UNSAFE_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
