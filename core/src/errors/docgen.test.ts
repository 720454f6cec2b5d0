import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ERRORS } from './codes.js'
import { renderErrorsDoc } from './docgen.js'

const ERRORS_MD = fileURLToPath(new URL('../../../docs/errors.md', import.meta.url))
const REGENERATE =
  'docs/errors.md is stale: regenerate it with `npx tsc -b core && node core/dist/config/write-docs.js`'

describe('renderErrorsDoc', () => {
  const doc = renderErrorsDoc()

  it('renders one section per code with its properties', () => {
    expect(doc).toContain(
      [
        '## 12 NOT_LEADER_OR_FOLLOWER',
        '',
        'Not leader or follower.',
        '',
        '- Retriable: yes',
        '- Stale metadata: yes',
        '- HTTP status: 503',
        '- Gateway code: `unavailable`',
        '',
      ].join('\n'),
    )
    expect(doc).toContain('## 1000 METASTORE_CONFLICT')
    expect(doc).toContain('- Wire code: 22 (INVALID_UPDATE_VERSION_EXCEPTION)')
  })

  it('orders sections by code', () => {
    const codes = [...doc.matchAll(/^## (-?\d+) /gm)].map(m => Number(m[1]))
    expect(codes).toEqual([...codes].sort((a, b) => a - b))
    expect(codes).toHaveLength(Object.keys(ERRORS).length)
  })

  it('matches the committed docs/errors.md', () => {
    expect(readFileSync(ERRORS_MD, 'utf8') === doc, REGENERATE).toBe(true)
  })
})
