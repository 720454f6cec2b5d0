import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { REPO_ROOT } from '@sluice/core/testing'
import { afterAll, describe, expect, it } from 'vitest'
import {
  boundaryViolations,
  formatViolation,
  importsOf,
  PACKAGE_RULES,
  type PackageRule,
  sourceFiles,
} from './boundaries.js'

describe('package boundaries', () => {
  it('every package of the repository imports only what its rule allows', () => {
    const violations = boundaryViolations(REPO_ROOT).map(formatViolation)
    expect(violations, violations.join('\n')).toEqual([])
  })

  it('the rules cover every workspace package with sources (but the test and bench harnesses)', () => {
    const root = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      workspaces: string[]
    }
    const ruled = new Set(PACKAGE_RULES.map(r => r.dir))
    const unruled = root.workspaces.filter(w => !ruled.has(w) && w !== 'test' && w !== 'bench')
    expect(unruled).toEqual([])
    for (const rule of PACKAGE_RULES) {
      if (!root.workspaces.includes(rule.dir)) continue
      const files = rule.sources.flatMap(s => sourceFiles(join(REPO_ROOT, rule.dir, s)))
      expect(files.length, `${rule.dir} has sources`).toBeGreaterThan(0)
    }
  })

  it('finds static, re-exported, side-effect, dynamic and required imports, not commented ones', () => {
    const text = [
      "import { a } from '@sluice/core/row'",
      "import type { B } from '@sluice/client'",
      "export * from '@sluice/tablet'",
      "import '@sluice/gateway/side-effect'",
      "const m = await import('@sluice/coordinator')",
      "const r = require('@sluice/tiering')",
      "// import { c } from '@sluice/cli'",
      "/* import { d } from '@sluice/localstack' */",
      'import {',
      '  e,',
      "} from '@sluice/lake'",
    ].join('\n')
    expect(importsOf('x.ts', text).map(s => [s.line, s.specifier])).toEqual([
      [1, '@sluice/core/row'],
      [2, '@sluice/client'],
      [3, '@sluice/tablet'],
      [4, '@sluice/gateway/side-effect'],
      [5, '@sluice/coordinator'],
      [6, '@sluice/tiering'],
      [9, '@sluice/lake'],
    ])
  })

  describe('names each offending import with its file, line and rule', () => {
    const root = mkdtempSync(join(tmpdir(), 'sluice-boundaries-'))
    afterAll(() => rmSync(root, { recursive: true, force: true }))
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true })
      writeFileSync(join(root, path), text)
    }
    const rules: PackageRule[] = PACKAGE_RULES.filter(r =>
      ['core', 'services/tablet', 'services/coordinator', 'functions/tiering', 'cdk'].includes(r.dir),
    )

    it('core importing a caller, a server importing another, tiering importing a server', () => {
      write('core/src/row/ok.ts', "import { x } from './local.js'\n")
      write('core/src/row/bad.ts', "\nimport { Admin } from '@sluice/client'\n")
      write('services/tablet/src/ok.ts', "import { y } from '@sluice/core/rpc'\n")
      write('services/tablet/src/bad.ts', "import { CoordinatorServer } from '@sluice/coordinator'\n")
      write('services/coordinator/src/bad.ts', "import { z } from '../../tablet/src/log/index.js'\n")
      write('functions/tiering/src/bad.ts', "const t = await import('@sluice/tablet')\n")
      const found = boundaryViolations(root, rules).map(formatViolation).sort()
      expect(found).toEqual([
        "core/src/row/bad.ts:2 imports '@sluice/client': @sluice/core may not import @sluice/client (core imports no caller)",
        "functions/tiering/src/bad.ts:1 imports '@sluice/tablet': @sluice/tiering may not import @sluice/tablet (tiering reads tiered segments and the metastore; it never imports a server)",
        "services/coordinator/src/bad.ts:1 imports '../../tablet/src/log/index.js': a relative import leaves services/coordinator/ (servers meet only through the protocol and the metastore)",
        "services/tablet/src/bad.ts:1 imports '@sluice/coordinator': @sluice/tablet may not import @sluice/coordinator (servers meet only through the protocol and the metastore)",
      ])
    })

    it('the CDK app importing code of core rather than data', () => {
      write('cdk/lib/ok.ts', "import { TABLET_SERVER_NODE_FLAGS } from '@sluice/core/config'\n")
      write('cdk/lib/bad.ts', "import { LogTablet } from '@sluice/core/log'\n")
      const found = boundaryViolations(root, rules)
        .filter(v => v.file.startsWith('cdk'))
        .map(v => `${v.file}:${v.line}`)
      expect(found).toEqual(['cdk/lib/bad.ts:1'])
      expect(existsSync(join(root, 'cdk/lib/ok.ts'))).toBe(true)
    })
  })
})
