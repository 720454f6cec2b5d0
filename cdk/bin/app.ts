import { existsSync } from 'node:fs'
import * as path from 'node:path'
import { App } from 'aws-cdk-lib'
import { SluiceStage } from '../lib/sluice-stage.js'
import { STAGES, stageByName } from '../lib/stages.js'

/**
 * The CDK app: one SluiceStage per configured stage, or only the one named by `-c stage=<name>`.
 * This file is the only reader of process.env in the CDK package.
 */
function findRepoRoot(start: string): string {
  for (let dir = start; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package-lock.json')) && existsSync(path.join(dir, 'Dockerfile')))
      return dir
  }
  throw new Error(`No repository root (package-lock.json and Dockerfile) above ${start}.`)
}

const app = new App()
const repoRoot = findRepoRoot(import.meta.dirname)
const account = process.env.CDK_DEFAULT_ACCOUNT
const region = process.env.CDK_DEFAULT_REGION
const env = account !== undefined && region !== undefined ? { account, region } : undefined
const only = app.node.tryGetContext('stage') as string | undefined
const stages = only === undefined ? Object.values(STAGES) : [stageByName(only)]
for (const config of stages) {
  new SluiceStage(app, { config, repoRoot, env })
}
app.synth()
