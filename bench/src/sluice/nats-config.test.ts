import { describe, expect, it } from 'vitest';
import { storedAtOfReply } from './nats-config.js';

describe('storedAtOfReply', () => {
  it('reads the server stamp (ns) of both ack subject forms, and nothing from other subjects', () => {
    const ns = '1764972000123456789';
    const ms = Number(ns) / 1e6;
    // $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ns>.<pending>
    expect(storedAtOfReply(`$JS.ACK.S_JOBS.c_1.1.42.40.${ns}.3`)).toBe(ms);
    // With the domain and account hash in front (and a trailing token).
    expect(storedAtOfReply(`$JS.ACK.dom.hash.S_JOBS.c_1.1.42.40.${ns}.3.tok`)).toBe(ms);
    expect(storedAtOfReply('_INBOX.abc.1')).toBeUndefined();
    expect(storedAtOfReply('$JS.ACK.S_JOBS.c_1.1.42')).toBeUndefined();
  });
});
