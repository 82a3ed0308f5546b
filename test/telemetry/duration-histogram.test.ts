import { describe, expect, it } from 'vitest';
import { DurationHistogram } from '../../runtime/core/telemetry/duration-histogram.js';

describe('DurationHistogram', () => {
  it('keeps one series per label triple, in the order first seen, with cumulative buckets', () => {
    const h = new DurationHistogram({ name: 'd', help: 'durations', labelNames: ['method', 'route', 'status_code'] });
    h.observe(0.001, 'POST', '/stream', '200');
    h.observe(0.02, 'GET', '/health', '200');
    h.observe(3, 'POST', '/stream', '200');
    // Label values that share a prefix or a separator must not meet in one series.
    h.observe(0.001, 'POST', '/stream', '2000');
    h.observe(0.001, 'POST\u0000/stream', '', '200');
    const text = h.text();
    expect(text.split('\n').filter((line) => line.startsWith('d_count'))).toEqual([
      'd_count{method="POST",route="/stream",status_code="200"} 2',
      'd_count{method="GET",route="/health",status_code="200"} 1',
      'd_count{method="POST",route="/stream",status_code="2000"} 1',
      'd_count{method="POST\u0000/stream",route="",status_code="200"} 1',
    ]);
    expect(text).toContain('d_bucket{le="0.005",method="POST",route="/stream",status_code="200"} 1');
    expect(text).toContain('d_bucket{le="2.5",method="POST",route="/stream",status_code="200"} 1');
    expect(text).toContain('d_bucket{le="5",method="POST",route="/stream",status_code="200"} 2');
    expect(text).toContain('d_sum{method="POST",route="/stream",status_code="200"} 3.001');
    const family = h.family();
    expect(family.values.filter((v) => v.metricName === 'd_count').map((v) => [v.labels, v.value])).toEqual([
      [{ method: 'POST', route: '/stream', status_code: '200' }, 2],
      [{ method: 'GET', route: '/health', status_code: '200' }, 1],
      [{ method: 'POST', route: '/stream', status_code: '2000' }, 1],
      [{ method: 'POST\u0000/stream', route: '', status_code: '200' }, 1],
    ]);
  });
});
