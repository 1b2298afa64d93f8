/**
 * The names of the tools this package registers: a leaf module, so the
 * catalog, the conversation reader and the tools agree without importing
 * each other.
 */
export const USE_SKILL_TOOL = 'use_skill';
export const READ_RESOURCE_TOOL = 'read_skill_resource';
export const FIND_SKILLS_TOOL = 'find_skills';
