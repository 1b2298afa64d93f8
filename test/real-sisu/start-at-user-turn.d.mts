/** Types for start-at-user-turn.mjs: a SISU middleware over any ctx holding messages. */
export declare function startAtUserTurn(ctx: { messages: Array<{ role: string }> }, next: () => Promise<void>): Promise<void>;
