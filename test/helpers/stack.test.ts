/**
 * The plain-object stack the middleware tests stand on, so a failing
 * middleware test can be trusted to be about the middleware.
 */
import { describe, expect, it } from 'vitest';
import { callTool, compose, createContext, invoke, type StackContext, type StackMiddleware, type ToolCallContext } from './stack.js';

describe('test stack', () => {
  it('compose runs middleware in onion order and rejects a second next()', async () => {
    const order: string[] = [];
    const mw =
      (name: string): StackMiddleware =>
      async (_ctx, next) => {
        order.push(`${name} in`);
        await next();
        order.push(`${name} out`);
      };
    await compose([mw('a'), mw('b')])(createContext(), async () => void order.push('end'));
    expect(order).toEqual(['a in', 'b in', 'end', 'b out', 'a out']);
    const twice: StackMiddleware = async (_ctx, next) => {
      await next();
      await next();
    };
    await expect(compose([twice])(createContext())).rejects.toThrow(/next\(\) called multiple times/);
  });

  it('copies messages, counts registrations, and replaces a tool of the same name', () => {
    const messages = [{ role: 'system', content: 'Base.' }];
    const ctx = createContext({ messages });
    ctx.messages[0]!.content += ' changed';
    expect(messages[0]!.content).toBe('Base.');
    const tool = { name: 't', schema: {}, handler: async () => 'x' };
    ctx.tools.register(tool);
    ctx.tools.register({ ...tool });
    expect(ctx.tools.list()).toHaveLength(1);
    expect(ctx.tools.timesRegistered('t')).toBe(2);
  });

  it('callTool hands the handler the signal and logger only, never the request ctx', async () => {
    let seen: ToolCallContext | undefined;
    const ctx: StackContext = createContext();
    ctx.tools.register({
      name: 'peek',
      schema: {},
      handler: async (_args: never, toolCtx: ToolCallContext) => {
        seen = toolCtx;
        return 'ok';
      },
    });
    expect(await callTool(ctx, 'peek', {})).toBe('ok');
    expect(seen).toEqual({ signal: ctx.signal, log: ctx.log });
    await expect(callTool(ctx, 'missing', {})).rejects.toThrow(/no such tool/);
    await expect(invoke({ name: 'obj', schema: {}, handler: async () => ({ a: 1 }) }, {})).rejects.toThrow(/obj answered with object/);
  });
});
