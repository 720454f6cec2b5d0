import { Match, Template } from 'aws-cdk-lib/assertions'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FLUSS_CONF_ENV } from '../lib/fluss-conf.js'
import { SluiceStage } from '../lib/sluice-stage.js'
import { STAGES } from '../lib/stages.js'
import { REPO_ROOT, SYNTH_TIMEOUT_MS, testApp } from './synth.js'

let dispose: () => void
let compute: Template

beforeAll(() => {
  const test = testApp()
  dispose = test.dispose
  compute = Template.fromStack(new SluiceStage(test.app, { config: STAGES.dev, repoRoot: REPO_ROOT }).compute)
}, SYNTH_TIMEOUT_MS)

afterAll(() => dispose())

describe('operations alarms and metrics in CloudWatch', () => {
  it.each([
    ['underReplicated', 'tabletserver', 'Maximum', 0],
    ['tierLagOverFreshnessMax', 'tiering', 'Maximum', 1],
    ['kvSnapshotFailures', 'tabletserver', 'Sum', 0],
  ])(
    'alarms on %s of the %s (%s > %d) and notifies the alarm topic',
    (metricName, service, statistic, threshold) => {
      compute.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'Sluice',
        MetricName: metricName,
        Dimensions: [{ Name: 'Service', Value: service }],
        Statistic: statistic,
        Period: 60,
        Threshold: threshold,
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [Match.objectLike({ Ref: Match.stringLikeRegexp('AlarmsTopic') })],
      })
    },
  )

  it('has exactly these three alarms and one topic', () => {
    compute.resourceCountIs('AWS::CloudWatch::Alarm', 3)
    compute.resourceCountIs('AWS::SNS::Topic', 1)
  })

  it('every server and function publishes embedded metrics (sluice.metrics.emf.interval) to the Sluice namespace', () => {
    const texts: string[] = []
    for (const td of Object.values(compute.findResources('AWS::ECS::TaskDefinition'))) {
      for (const c of td.Properties.ContainerDefinitions) {
        const env = (c.Environment ?? []).find((e: { Name: string }) => e.Name === FLUSS_CONF_ENV)
        if (env) texts.push(JSON.stringify(env.Value))
      }
    }
    for (const fn of Object.values(compute.findResources('AWS::Lambda::Function'))) {
      const v = fn.Properties.Environment?.Variables?.[FLUSS_CONF_ENV]
      if (v) texts.push(JSON.stringify(v))
    }
    expect(texts.length).toBeGreaterThanOrEqual(3)
    for (const t of texts) {
      expect(t).toContain('sluice.metrics.emf.interval')
      expect(t).toContain('sluice.metrics.emf.namespace')
    }
  })
})
