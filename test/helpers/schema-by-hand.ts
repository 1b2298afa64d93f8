/**
 * SkillMetadataSchema as it was written out field by field before the
 * fields' table made it (issue 40): the table must keep meaning exactly
 * this. test/schema.test.ts compares their answers, and
 * test/types/metadata-schema.test-d.ts their types.
 */
import { z } from 'zod';

const hasText = (value: string): boolean => value.trim().length > 0;

export const SCHEMA_BY_HAND = z
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
