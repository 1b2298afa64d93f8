// Types for labelled-set.mjs.
export const HELD_BACK_SHARE: number;
export function isHeldBack(request: string): boolean;
export function readLabelled(file: URL | string): Array<Record<string, unknown> & { request: string; heldBack: boolean }>;
