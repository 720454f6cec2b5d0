import { Duration } from 'aws-cdk-lib'
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch'
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions'
import * as sns from 'aws-cdk-lib/aws-sns'
import { Construct } from 'constructs'

/** The namespace of the servers' and tiering function's embedded-metric-format lines. */
export const METRICS_NAMESPACE = 'Sluice'

export interface OperationsAlarmsProps {
  /** Periods (of one minute) a condition must hold before the alarm fires. */
  readonly evaluationPeriods?: number
}

/**
 * CloudWatch alarms on the metrics every tablet server and the tiering function publish with the
 * embedded metric format (`sluice.metrics.emf.interval`): buckets under-replicated, a lake staler
 * than its table's `table.datalake.freshness`, and failed KV snapshots. They notify `topic`.
 */
export class OperationsAlarms extends Construct {
  readonly topic: sns.Topic
  readonly underReplicated: cloudwatch.Alarm
  readonly lakeLag: cloudwatch.Alarm
  readonly kvSnapshotFailures: cloudwatch.Alarm

  constructor(scope: Construct, id: string, props: OperationsAlarmsProps = {}) {
    super(scope, id)
    const periods = props.evaluationPeriods ?? 5
    this.topic = new sns.Topic(this, 'Topic', { displayName: 'Sluice operations alarms' })
    const metric = (service: string, metricName: string, statistic: string) =>
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { Service: service },
        statistic,
        period: Duration.minutes(1),
      })
    this.underReplicated = new cloudwatch.Alarm(this, 'UnderReplicatedBuckets', {
      alarmDescription:
        'Buckets whose ISR is smaller than their replicas (a tablet server is down or lagging).',
      metric: metric('tabletserver', 'underReplicated', 'Maximum'),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: periods,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    })
    this.lakeLag = new cloudwatch.Alarm(this, 'LakeLagOverFreshness', {
      alarmDescription: 'A lake table has not been tiered within its table.datalake.freshness.',
      metric: metric('tiering', 'tierLagOverFreshnessMax', 'Maximum'),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: periods,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    })
    this.kvSnapshotFailures = new cloudwatch.Alarm(this, 'KvSnapshotFailures', {
      alarmDescription: 'KV snapshots of primary-key buckets are failing (recovery would replay more log).',
      metric: metric('tabletserver', 'kvSnapshotFailures', 'Sum'),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: periods,
      datapointsToAlarm: Math.max(1, Math.ceil(periods / 2)),
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    })
    for (const alarm of [this.underReplicated, this.lakeLag, this.kvSnapshotFailures])
      alarm.addAlarmAction(new actions.SnsAction(this.topic))
  }
}
