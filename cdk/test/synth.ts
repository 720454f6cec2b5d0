import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { App } from 'aws-cdk-lib'

/** Repository root as seen from cdk/test. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../..')

/** The feature flags of cdk.json, so tests synthesize what `cdk synth` synthesizes. */
const CDK_CONTEXT = JSON.parse(readFileSync(path.join(import.meta.dirname, '../cdk.json'), 'utf8')).context

/**
 * A CDK app with cdk.json's feature flags that synthesizes into its own temporary directory (removed
 * by `dispose`) and skips Lambda bundling, so tests need neither Docker nor esbuild runs.
 */
export function testApp(): { app: App; dispose: () => void } {
  const outdir = mkdtempSync(path.join(tmpdir(), 'sluice-cdk-test-'))
  const app = new App({ outdir, context: { ...CDK_CONTEXT, 'aws:cdk:bundling-stacks': [] } })
  return { app, dispose: () => rmSync(outdir, { recursive: true, force: true }) }
}

/** Stands for a deployment-time value (a resource name or region); valid as an S3 bucket name. */
export const TOKEN_PLACEHOLDER = 'token'

/** An intrinsic `Fn::Join` of strings and tokens as text, with every token replaced by `placeholder`. */
export function joinedText(value: unknown, placeholder = TOKEN_PLACEHOLDER): string {
  if (typeof value === 'string') return value
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join']
  if (join === undefined) return placeholder
  return join[1].map(part => (typeof part === 'string' ? part : placeholder)).join(join[0])
}

/** Synthesizing a stage takes seconds on a busy machine; beforeAll hooks that do it get this long. */
export const SYNTH_TIMEOUT_MS = 120_000
