import { describe, expect, it } from 'vitest';
import { firstNodeUrl, parseRedisTarget } from './cluster-target.js';
import { groupBySlot, slotKey } from './keys.js';

describe('runtime URL', () => {
  it('keeps a single-server URL as it is', () => {
    expect(parseRedisTarget('redis://10.0.0.1:6379/2')).toEqual({
      cluster: false,
      url: 'redis://10.0.0.1:6379/2',
    });
    expect(firstNodeUrl('rediss://h:1')).toBe('rediss://h:1');
  });
  it('reads a cluster seed list, with credentials and TLS', () => {
    expect(parseRedisTarget('rediss+cluster://app:s%40cret@h1:7000,[::1]:7001')).toEqual({
      cluster: true,
      nodes: [
        { host: 'h1', port: 7000 },
        { host: '::1', port: 7001 },
      ],
      username: 'app',
      password: 's@cret',
      tls: true,
    });
    expect(firstNodeUrl('redis+cluster://h1:7000,h2:7001')).toBe('redis://h1:7000');
  });
  it('refuses a node that is not host:port, naming url', () => {
    expect(() => parseRedisTarget('redis+cluster://h1:7000,h2')).toThrowError(
      /url: invalid cluster URL .*"h2" is not host:port/,
    );
    expect(() => parseRedisTarget('redis+cluster://h1:70000')).toThrowError(/out of range/);
  });
});

describe('slot keys', () => {
  it('follow the Redis Cluster hash-tag rule', () => {
    expect(slotKey('sluice:jobs:{a.b:v1}:high')).toBe('a.b:v1');
    expect(slotKey('sluice:events')).toBe('sluice:events');
    // An empty tag or an unclosed brace: the whole key decides.
    expect(slotKey('x{}y')).toBe('x{}y');
    expect(slotKey('x{y')).toBe('x{y');
    expect(slotKey('{a}{b}')).toBe('a');
  });
  it('group a batch by slot in first-seen order', () => {
    const keys = ['s:{a:v1}', 's:{b:v1}', 's:{a:v1}:high', 'events'];
    expect(groupBySlot(keys, (k) => k)).toEqual([[0, 2], [1], [3]]);
  });
});
