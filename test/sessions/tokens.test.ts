import { describe, expect, it } from 'vitest';
import { generateToken, hashToken, isPlausibleToken, TOKEN_BYTES } from '../../runtime/sessions/tokens.js';

describe('session tokens', () => {
  it('are 256 random bits as base64url', () => {
    const token = generateToken();
    expect(TOKEN_BYTES).toBe(32);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    const many = new Set(Array.from({ length: 1000 }, () => generateToken()));
    expect(many.size).toBe(1000);
  });

  it('hash to SHA-256 hex, deterministically', () => {
    const token = generateToken();
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).toBe(hashToken(token));
    expect(hashToken(token)).not.toBe(hashToken(generateToken()));
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('reject shapes that cannot be ours before hashing', () => {
    expect(isPlausibleToken(generateToken())).toBe(true);
    expect(isPlausibleToken('')).toBe(false);
    expect(isPlausibleToken('a'.repeat(257))).toBe(false);
    expect(isPlausibleToken('a'.repeat(256))).toBe(true);
    expect(isPlausibleToken('not a token')).toBe(false);
    expect(isPlausibleToken('abc=')).toBe(false);
    expect(isPlausibleToken(undefined)).toBe(false);
  });
});
