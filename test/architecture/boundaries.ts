import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'

/**
 * The import rules between the repository's packages. Imports point one way: everything may import
 * `core`; the lake formats are imported by the SDK, tiering and the CLI; services, functions and the CLI may
 * import the SDK; no server imports another (they meet only through the protocol and the metastore);
 * tiering never imports a server; the gateway and the CLI are clients; the CDK app takes only data
 * from `core` and refers to the servers' and functions' entry points by path.
 */
export interface PackageRule {
  /** Folder of the package, relative to the repository root. */
  readonly dir: string
  /** npm name of the package. */
  readonly name: string
  /** Source folders checked (relative to `dir`). */
  readonly sources: readonly string[]
  /** Workspace packages it may import (its own name is always allowed). */
  readonly mayImport: readonly string[]
  /**
   * Subpaths of `@sluice/core` it may import, when not all of them (the CDK app takes only data:
   * configuration keys and defaults, metastore and object-store key layouts).
   */
  readonly coreSubpaths?: readonly string[]
  /** Why: printed with a violation. */
  readonly why: string
}

export const PACKAGE_RULES: readonly PackageRule[] = [
  { dir: 'core', name: '@sluice/core', sources: ['src'], mayImport: [], why: 'core imports no caller' },
  {
    dir: 'lake',
    name: '@sluice/lake',
    sources: ['src'],
    mayImport: ['@sluice/core'],
    why: 'the lake formats build on core only; the SDK and tiering import them',
  },
  {
    dir: 'client',
    name: '@sluice/client',
    sources: ['src'],
    mayImport: ['@sluice/core', '@sluice/lake'],
    why: 'the SDK is a client of the protocol; it knows no server',
  },
  {
    dir: 'services/coordinator',
    name: '@sluice/coordinator',
    sources: ['src'],
    mayImport: ['@sluice/core', '@sluice/client'],
    why: 'servers meet only through the protocol and the metastore',
  },
  {
    dir: 'services/tablet',
    name: '@sluice/tablet',
    sources: ['src'],
    mayImport: ['@sluice/core', '@sluice/client'],
    why: 'servers meet only through the protocol and the metastore',
  },
  {
    dir: 'functions/tiering',
    name: '@sluice/tiering',
    sources: ['src'],
    mayImport: ['@sluice/core', '@sluice/client', '@sluice/lake'],
    why: 'tiering reads tiered segments and the metastore; it never imports a server',
  },
  {
    dir: 'functions/gateway',
    name: '@sluice/gateway',
    sources: ['src'],
    mayImport: ['@sluice/core', '@sluice/client', '@sluice/lake'],
    why: 'the gateway is a client of the cluster',
  },
  {
    dir: 'cli',
    name: '@sluice/cli',
    sources: ['src', 'bin'],
    // Local mode starts the emulators and the local tiering scheduler in-process; the servers and
    // the gateway run as child processes started by path. `lake status` reads the lake's metadata.
    mayImport: ['@sluice/core', '@sluice/client', '@sluice/lake', '@sluice/localstack', '@sluice/tiering'],
    why: 'the CLI is a client; it starts servers by path, never by import',
  },
  {
    dir: 'localstack',
    name: '@sluice/localstack',
    sources: ['src'],
    mayImport: ['@sluice/core'],
    why: 'the local AWS endpoints know only core',
  },
  {
    dir: 'cdk',
    name: '@sluice/cdk',
    sources: ['lib', 'bin'],
    mayImport: ['@sluice/core'],
    coreSubpaths: ['@sluice/core/config', '@sluice/core/metastore', '@sluice/core/blobstore'],
    why: 'the CDK app takes only data from core and refers to entry points by path',
  },
]

export interface ImportSite {
  readonly file: string
  readonly line: number
  readonly specifier: string
}

export interface Violation extends ImportSite {
  readonly rule: string
}

const IMPORT_PATTERNS = [
  /\b(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
  /\bimport\s*['"]([^'"]+)['"]/g,
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
]

/** Every module specifier a TypeScript source names, with its line (comments are ignored). */
export function importsOf(file: string, text: string): ImportSite[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, m => m.replace(/[^\n]/g, ' ')).replace(/\/\/[^\n]*/g, '')
  const sites: ImportSite[] = []
  for (const pattern of IMPORT_PATTERNS) {
    for (const m of code.matchAll(pattern)) {
      const line = code.slice(0, m.index).split('\n').length
      sites.push({ file, line, specifier: m[1] })
    }
  }
  return sites.sort((a, b) => a.line - b.line)
}

/** The workspace package a specifier names (`@sluice/core/row` → `@sluice/core`), or null. */
export function workspacePackageOf(specifier: string): string | null {
  const m = /^(@sluice\/[^/]+)/.exec(specifier)
  return m === null ? null : m[1]
}

/** The violations of `rule` among the imports of one file (paths relative to `root`). */
export function checkImports(root: string, rule: PackageRule, sites: readonly ImportSite[]): Violation[] {
  const violations: Violation[] = []
  const packageRoot = resolve(root, rule.dir)
  for (const site of sites) {
    const { specifier } = site
    if (specifier.startsWith('.')) {
      const target = resolve(dirname(resolve(root, site.file)), specifier)
      if (target !== packageRoot && !target.startsWith(packageRoot + sep)) {
        violations.push({ ...site, rule: `a relative import leaves ${rule.dir}/ (${rule.why})` })
      }
      continue
    }
    const pkg = workspacePackageOf(specifier)
    if (pkg === null || pkg === rule.name) continue
    if (!rule.mayImport.includes(pkg)) {
      violations.push({ ...site, rule: `${rule.name} may not import ${pkg} (${rule.why})` })
    } else if (pkg === '@sluice/core' && rule.coreSubpaths !== undefined) {
      if (!rule.coreSubpaths.includes(specifier)) {
        violations.push({
          ...site,
          rule: `${rule.name} may import only ${rule.coreSubpaths.join(', ')} of core (${rule.why})`,
        })
      }
    }
  }
  return violations
}

/** TypeScript sources of a folder (tests included: they belong to their package too). */
export function sourceFiles(dir: string): string[] {
  const out: string[] = []
  let entries: string[]
  try {
    entries = readdirSync(dir)
  } catch {
    return out
  }
  for (const entry of entries) {
    if (entry === 'node_modules' || entry === 'dist' || entry === 'cdk.out') continue
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path))
    else if (/\.(ts|mts|js|mjs)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(path)
  }
  return out
}

/** Every violation of the package rules in the repository at `root`. */
export function boundaryViolations(root: string, rules: readonly PackageRule[] = PACKAGE_RULES): Violation[] {
  const violations: Violation[] = []
  for (const rule of rules) {
    for (const source of rule.sources) {
      for (const path of sourceFiles(join(root, rule.dir, source))) {
        const file = relative(root, path)
        violations.push(...checkImports(root, rule, importsOf(file, readFileSync(path, 'utf8'))))
      }
    }
  }
  return violations
}

export function formatViolation(v: Violation): string {
  return `${v.file}:${v.line} imports '${v.specifier}': ${v.rule}`
}
