import { describe, expect, it } from 'vitest';
import { routeLabel } from '../../runtime/core/telemetry/route-label.js';

describe('routeLabel', () => {
  it('labels a path by its shape, and the same target the same way when it is asked again (from the cache)', () => {
    expect(routeLabel('/work/12345?x=1', 200)).toBe('/work/{id}');
    expect(routeLabel('/work/12345?x=1', 200)).toBe('/work/{id}');
    expect(routeLabel('/stream', 200)).toBe('/stream');
    expect(routeLabel('/stream', 200)).toBe('/stream');
    expect(routeLabel(undefined, 200)).toBe('/');
  });

  it('gives "unmatched" to a 404 even for a target it has labelled before', () => {
    expect(routeLabel('/health', 200)).toBe('/health');
    expect(routeLabel('/health', 404)).toBe('unmatched');
    expect(routeLabel('/health', 200)).toBe('/health');
  });

  it('stays bounded: past 64 routes new ones are "other", known ones keep their label, and many targets do not change that', () => {
    const labels = Array.from({ length: 100 }, (_, i) => routeLabel(`/r${String.fromCharCode(97 + (i % 26))}${i}`, 200));
    expect(labels.filter((label) => label === 'other').length).toBeGreaterThan(0);
    const firstOther = labels.indexOf('other');
    // A route counted before the limit keeps its label; one past it stays "other", asked again or not.
    expect(routeLabel('/ra0', 200)).toBe('/ra0');
    expect(routeLabel(`/r${String.fromCharCode(97 + (firstOther % 26))}${firstOther}`, 200)).toBe('other');
    for (let i = 0; i < 1000; i++) expect(routeLabel(`/x${i}?q`, 200)).toBe('other');
    expect(routeLabel('/stream', 200)).toBe('/stream');
    expect(routeLabel('/work/999?other', 200)).toBe('/work/{id}');
  });
});
