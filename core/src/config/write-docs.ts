import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { renderErrorsDoc } from '../errors/docgen.js'
import { renderConfigDoc } from './docgen.js'

/**
 * Writes docs/config.md and docs/errors.md from the option registry and the error table:
 *
 *   npx tsc -b core && node core/dist/config/write-docs.js [docs-dir]
 *
 * Without an argument the docs directory is found relative to this module (core/{src,dist}/config).
 */
export const DEFAULT_DOCS_DIR = resolve(fileURLToPath(new URL('../../../docs', import.meta.url)))

export function writeDocs(docsDir = DEFAULT_DOCS_DIR): string[] {
  const files: [string, string][] = [
    [join(docsDir, 'config.md'), renderConfigDoc()],
    [join(docsDir, 'errors.md'), renderErrorsDoc()],
  ]
  for (const [path, text] of files) writeFileSync(path, text)
  return files.map(([path]) => path)
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const path of writeDocs(process.argv[2] === undefined ? undefined : resolve(process.argv[2]))) {
    console.log(`wrote ${path}`)
  }
}
