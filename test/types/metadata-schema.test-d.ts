/**
 * Type tests, checked by `npm run typecheck` (never run by vitest): the
 * exported SkillMetadataSchema, made from the fields' table
 * (src/metadata/fields.ts), has exactly the type of the schema written out
 * field by field before the table (test/helpers/schema-by-hand.ts), so
 * `z.infer` and every method an app calls on it type as they did.
 */
import { expectTypeOf } from 'vitest';
import type { z } from 'zod';
import type { SkillMetadata, SkillMetadataSchema } from '../../src/index.js';
import type { SCHEMA_BY_HAND } from '../helpers/schema-by-hand.js';

expectTypeOf<typeof SkillMetadataSchema>().toEqualTypeOf<typeof SCHEMA_BY_HAND>();
expectTypeOf<z.infer<typeof SkillMetadataSchema>>().toEqualTypeOf<z.infer<typeof SCHEMA_BY_HAND>>();
expectTypeOf<z.infer<typeof SkillMetadataSchema>>().toMatchTypeOf<SkillMetadata>();
// @ts-expect-error a name is a string, never a number
expectTypeOf<z.infer<typeof SkillMetadataSchema>['name']>().toEqualTypeOf<number>();
