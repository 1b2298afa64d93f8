// Types for set.mjs.
export const HELD_BACK_SHARE: number;
export function isHeldBack(request: string): boolean;
export interface LabelledRequest {
  id: string;
  request: string;
  accept: string[];
  heldBack: boolean;
}
export function loadRequests(): LabelledRequest[];
