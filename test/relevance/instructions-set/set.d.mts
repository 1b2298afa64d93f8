// Types for set.mjs.
export const HELD_BACK_SHARE: number;
export function isHeldBack(request: string): boolean;
export interface InstructionsRequest {
  id: string;
  /** What a user would send. */
  request: string;
  /** Every corpus skill a careful judge accepts for it (the target among them). */
  accept: string[];
  /** The skill whose instructions the request was written from. */
  target: string;
  heldBack: boolean;
}
export function loadRequests(): InstructionsRequest[];
