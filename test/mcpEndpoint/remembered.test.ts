import { expect, it } from 'vitest';
import { rememberedCapabilities, sessionIdFor } from '../../src/mcpEndpoint/remembered.js';

/** What the hosted endpoint's Mcp-Session-Id carries of a client's declaration: pure, given/when/then. */

it('carries URL-mode elicitation, and nothing else a client declares', () => {
  const declared = { elicitation: { url: {}, form: {} }, sampling: {}, roots: { listChanged: true } };
  const id = sessionIdFor(declared);
  expect(id).toMatch(/^[\x21-\x7e]+$/);
  expect(rememberedCapabilities(id)).toEqual({ elicitation: { url: {} } });
  expect(rememberedCapabilities(sessionIdFor({ elicitation: { form: {} } }))).toEqual({});
  // Unique per initialization, whatever was declared.
  expect(sessionIdFor(declared)).not.toBe(id);
});

it('reads nothing from a missing, malformed or altered ID', () => {
  const id = sessionIdFor({ elicitation: { url: {} } });
  const [random] = id.split('.');
  for (const bad of [undefined, '', 'abc', `${random}.`, `${random}.!!!`, `${random}.${Buffer.from('not json').toString('base64url')}`, `${random}.${Buffer.from('{"elicitation":7}').toString('base64url')}`, `${id}x`.repeat(40)]) {
    expect(rememberedCapabilities(bad)).toBeUndefined();
  }
});
