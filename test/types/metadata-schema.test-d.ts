/**
 * Type tests, checked by `npm run typecheck` (never run by vitest): the
 * exported SkillMetadataSchema, made from the fields' table
 * (src/metadata/fields.ts), has exactly the type of the schema written out
 * field by field before the table (`_byHand`), so `z.infer` and every method an app
 * calls on it type as they did.
 */
import { expectTypeOf } from 'vitest';
import { z } from 'zod';
import type { SkillMetadata, SkillMetadataSchema } from '../../src/index.js';

const hasText = (value: string): boolean => value.trim().length > 0;
const _byHand = z
  .object({
    name: z.string().refine(hasText),
    description: z.string().refine(hasText),
    license: z.string().optional(),
    compatibility: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    'allowed-tools': z.union([z.string(), z.array(z.string())]).optional(),
    version: z.string().optional(),
    author: z.string().optional(),
    tags: z.array(z.string()).optional(),
  })
  .passthrough();

expectTypeOf<typeof SkillMetadataSchema>().toEqualTypeOf<typeof _byHand>();
expectTypeOf<z.infer<typeof SkillMetadataSchema>>().toEqualTypeOf<z.infer<typeof _byHand>>();
expectTypeOf<z.infer<typeof SkillMetadataSchema>>().toMatchTypeOf<SkillMetadata>();
// @ts-expect-error a name is a string, never a number
expectTypeOf<z.infer<typeof SkillMetadataSchema>['name']>().toEqualTypeOf<number>();
