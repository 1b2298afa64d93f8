/** What kind of file a resource is (script, template, reference, asset or other), from its path alone. */
import type { ResourceType } from '../base/model.js';

const FOLDER_TYPES: Record<string, ResourceType> = {
  scripts: 'script',
  templates: 'template',
  references: 'reference',
  docs: 'reference',
  assets: 'asset',
};

const SCRIPT_EXTENSIONS = new Set(['sh', 'bash', 'zsh', 'py', 'js', 'mjs', 'cjs', 'ts', 'ps1', 'rb', 'pl']);
const TEMPLATE_EXTENSIONS = new Set([
  'tmpl',
  'tpl',
  'template',
  'hbs',
  'handlebars',
  'mustache',
  'j2',
  'jinja',
  'jinja2',
  'ejs',
  'njk',
  'liquid',
]);
const REFERENCE_EXTENSIONS = new Set(['md', 'markdown', 'txt', 'rst', 'adoc']);
const ASSET_EXTENSIONS = new Set([
  // images
  'png',
  'jpg',
  'jpeg',
  'gif',
  'svg',
  'webp',
  'ico',
  'bmp',
  // fonts
  'ttf',
  'otf',
  'woff',
  'woff2',
  // data
  'json',
  'csv',
  'tsv',
  'yaml',
  'yml',
  'xml',
  'xlsx',
  'pdf',
  'zip',
]);

/**
 * What a resource is, from its relative POSIX path alone:
 * 1. the top-most conventional folder it sits in decides: scripts/ -> script,
 *    templates/ -> template, references/ or docs/ -> reference, assets/ -> asset
 *    (the author put it there on purpose);
 * 2. otherwise the name: script extensions (.sh .py .js .ts ...) -> script;
 *    template extensions (.tmpl .hbs .j2 ...) or "template" in the name -> template;
 *    documents (.md .txt .rst ...) -> reference; images, fonts and data -> asset;
 * 3. anything else -> other.
 */
export function classifyResource(relativePath: string): ResourceType {
  const fileName = relativePath.slice(relativePath.lastIndexOf('/') + 1).toLowerCase();
  for (const segment of relativePath.split('/').slice(0, -1)) {
    const type = FOLDER_TYPES[segment.toLowerCase()];
    if (type) return type;
  }
  const dot = fileName.lastIndexOf('.');
  const extension = dot > 0 ? fileName.slice(dot + 1) : '';
  if (SCRIPT_EXTENSIONS.has(extension)) return 'script';
  if (TEMPLATE_EXTENSIONS.has(extension) || fileName.includes('template')) return 'template';
  if (REFERENCE_EXTENSIONS.has(extension)) return 'reference';
  if (ASSET_EXTENSIONS.has(extension)) return 'asset';
  return 'other';
}
