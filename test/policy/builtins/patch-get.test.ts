/**
 * json.patch and object.get as OPA v1.20.2 answers them (each expectation
 * was checked against a real OPA through the differential oracle).
 */
import { describe, expect, it } from 'vitest';
import { errorOf, run } from '../helpers.js';

const strict = { strictBuiltinErrors: true };
const x = (expr: string) => run('package p', `x := ${expr}`, strict)[0]?.x;
const fails = (expr: string) => errorOf(() => run('package p', `x := ${expr}`, strict));

describe('json.patch', () => {
  it('replaces or adds the whole document with the "" path', () => {
    expect(x('json.patch({"a": 1}, [{"op": "replace", "path": "", "value": 5}])')).toBe(5);
    expect(x('json.patch(1, [{"op": "add", "path": "", "value": 3}])')).toBe(3);
  });

  it('adds into a set only when the path names the member', () => {
    expect(x('json.patch({"a": {1, 2}}, [{"op": "add", "path": "/a/3", "value": "3"}])')).toEqual({ a: [1, 2, '3'] });
    expect(fails('json.patch({"a": {1, 2}}, [{"op": "add", "path": "/a/3", "value": 3}])')?.message).toContain(
      'json.patch: set key "3" does not equal value to be inserted 3',
    );
  });

  it("raises OPA's errors instead of being undefined", () => {
    expect(fails('json.patch({"a": 1}, [{"op": "remove", "path": "/b"}])')?.message).toContain('json.patch: cannot delete child key "b" that does not exist');
    expect(fails('json.patch({"a": 1}, [{"op": "add", "path": "/b/c", "value": 5}])')?.message).toContain(
      'json.patch: path "b" does not exist in object term {"a": 1}',
    );
    expect(fails('json.patch({"a": 1}, [{"op": "bogus", "path": "/b"}])')?.message).toContain("json.patch: unrecognized op: 'bogus'");
    expect(fails('json.patch({"a": [1, 2]}, [{"op": "add", "path": "/a/5", "value": 3}])')?.message).toContain(
      'json.patch: index for array insertion out of bounds',
    );
    expect(fails('json.patch({"a": 1}, [{"op": "add", "path": "/a/b", "value": 3}])')?.message).toContain(
      'json.patch: expected composite type, found value: 1 (type: ast.Number)',
    );
    expect(fails('json.patch({"a": 1}, [{"op": "add", "path": "/b"}])')?.message).toContain("json.patch: missing required attribute 'value'");
  });

  it('is undefined (not an error) without strict builtin errors, as in OPA', () => {
    expect(run('package p', 'x := json.patch({"a": 1}, [{"op": "remove", "path": "/b"}])')).toEqual([]);
  });
});

describe('object.get', () => {
  it('returns a null value, not the default', () => {
    expect(x('object.get({"a": null}, "a", "dflt")')).toBeNull();
    expect(x('object.get({"a": {"b": null}}, ["a", "b"], "dflt")')).toBeNull();
    expect(x('object.get({"a": 1}, "b", "dflt")')).toBe('dflt');
  });
});
