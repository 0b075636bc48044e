import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Route } from '#functions/routes.ts';
import { metricNames, metricsNamespace, serviceName } from '#shared/metrics.ts';
import type { GatewayFunction } from './gateway-function.ts';

/**
 * The on-call view (docs/operator-runbook.md): one CloudWatch dashboard with every metric of
 * shared/metrics.ts plus the AWS ones, and the alarms the runbook explains, all notifying the
 * stack's alarm topic. `alarmThresholds` is exported so the stack test and the runbook agree.
 */
export const alarmThresholds = {
  /** Share of API requests answered 5xx over 5 minutes. */
  api5xxRate: 0.01,
  /** p99 request latency per route over 5 minutes (ms). */
  routeLatencyP99Ms: 3_000,
  /** Oldest unprocessed record on the outbox relay's stream (ms). */
  streamIteratorAgeMs: 60_000,
  /** Oldest message in the webhook queue (s): just over the longest retry wait (10 h) plus slack. */
  webhookBacklogAgeSeconds: 11 * 3600,
  /** How late the oldest due item is when the sweeper starts (s). */
  dueSweeperLagSeconds: 120,
} as const;

export interface ObservabilityProps {
  api: RestApi;
  routes: readonly Route[];
  functions: ReadonlyMap<string, GatewayFunction>;
  webhookQueue: IQueue;
  deadLetterQueue: IQueue;
  alarmTopic: ITopic;
  /** The stream consumer whose iterator age is watched (the outbox relay). */
  streamConsumerId: string;
}

const five = Duration.minutes(5);
const emf = (metricName: string, statistic: string, dimensionsMap: Record<string, string> = {}, period = five) =>
  new Metric({ namespace: metricsNamespace, metricName, statistic, period, dimensionsMap: { service: serviceName, ...dimensionsMap } });
/** Every series of an EMF metric whatever its dimension values (dashboards only: alarms cannot SEARCH). */
const search = (metricName: string, dimensions: string[], statistic: string, label: string) =>
  new MathExpression({
    expression: `SEARCH('{${metricsNamespace},${['service', ...dimensions].join(',')}} MetricName="${metricName}"', '${statistic}', 300)`,
    usingMetrics: {},
    label,
    period: five,
  });

export class Observability extends Construct {
  readonly dashboard: Dashboard;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const { api, routes, functions, webhookQueue, deadLetterQueue, alarmTopic } = props;
    const alarm = (alarmId: string, metric: IMetric, threshold: number, description: string, evaluationPeriods = 1) => {
      const a = new Alarm(this, alarmId, {
        metric,
        threshold,
        evaluationPeriods,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: `${description} Runbook: docs/operator-runbook.md#${alarmId.toLowerCase()}`,
      });
      a.addAlarmAction(new SnsAction(alarmTopic));
      this.alarms.push(a);
      return a;
    };

    const errorRate = api.metricServerError({ period: five, statistic: 'Average' });
    alarm('Api5xxRate', errorRate, alarmThresholds.api5xxRate, 'More than 1 % of API requests answered 5xx over 5 minutes.');
    for (const route of routes) {
      alarm(
        `LatencyP99${route.id}`,
        emf(metricNames.requestLatency, 'p99', { Route: route.id }),
        alarmThresholds.routeLatencyP99Ms,
        `${route.method} ${route.path}: p99 latency above ${alarmThresholds.routeLatencyP99Ms} ms over 5 minutes.`,
      );
    }
    const deadLetters = deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' });
    alarm(
      'DeadLetters',
      emf(metricNames.deadLetters, 'Sum', {}, Duration.minutes(1)),
      0,
      'Webhook events exhausted their retries and were dead-lettered.',
    );
    const relay = functions.get(props.streamConsumerId);
    if (!relay) throw new Error(`no function ${props.streamConsumerId}`);
    const iteratorAge = relay.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) });
    alarm(
      'StreamIteratorAge',
      iteratorAge,
      alarmThresholds.streamIteratorAgeMs,
      'The outbox relay is more than 60 s behind the table stream: webhooks are delayed.',
      3,
    );
    const backlogAge = webhookQueue.metricApproximateAgeOfOldestMessage({ period: five, statistic: 'Maximum' });
    alarm(
      'WebhookBacklogAge',
      backlogAge,
      alarmThresholds.webhookBacklogAgeSeconds,
      'A webhook message has waited longer than the whole retry schedule allows: the dispatcher is not consuming.',
    );
    const sweeperLag = emf(metricNames.dueSweeperLag, 'Maximum');
    alarm(
      'DueSweeperLag',
      sweeperLag,
      alarmThresholds.dueSweeperLagSeconds,
      'Due items (expiries, reconciliations, settlements, refunds) wait more than 2 minutes: the due sweeper is behind or failing.',
      2,
    );
    const discrepancies = new MathExpression({
      expression: 'FILL(full, 0) + FILL(incremental, 0) + FILL(checkpoints, 0)',
      usingMetrics: {
        full: emf(metricNames.ledgerDiscrepancies, 'Maximum', { Scope: 'full' }, Duration.hours(1)),
        incremental: emf(metricNames.ledgerDiscrepancies, 'Maximum', { Scope: 'incremental' }, Duration.hours(1)),
        // A statement or balance checkpoint refused because the books do not add up (shared/services/balance-checkpoints.ts).
        checkpoints: emf(metricNames.ledgerDiscrepancies, 'Maximum', { Scope: 'checkpoints' }, Duration.hours(1)),
      },
      label: 'Ledger discrepancies',
      period: Duration.hours(1),
    });
    alarm('LedgerDiscrepancy', discrepancies, 0, 'The ledger verifier found a wallet, journal or object that does not add up.');
    const unresolvedCards = emf(metricNames.cardOutcomeUnresolved, 'Sum');
    alarm(
      'CardOutcomeUnresolved',
      unresolvedCards,
      0,
      'A live card payment has had no answer from the card provider for 24 hours: an operator must find out whether it was charged.',
    );

    // A payment the customer made while its merchant was suspended, held until an operator releases or declines it
    // (shared/services/held-approvals.ts): the customer's money is in limbo, so an operator is told at once.
    const held = new MathExpression({
      expression: 'FILL(card, 0) + FILL(wallet, 0)',
      usingMetrics: {
        card: emf(metricNames.approvalsHeld, 'Sum', { Method: 'card' }),
        wallet: emf(metricNames.approvalsHeld, 'Sum', { Method: 'wallet' }),
      },
      label: 'Payments held (merchant suspended)',
      period: five,
    });
    alarm(
      'ApprovalHeld',
      held,
      0,
      'A payment was approved or captured while its merchant was suspended: it is held until an operator releases or declines it.',
    );

    // A streamed CSV export whose read failed after its first byte: the merchant got a file ending `# INCOMPLETE EXPORT`
    // (shared/services/csv-export.ts); the platform's bounds (Reason size/time) are expected and not alarmed.
    const failedExports = emf(metricNames.exportsIncomplete, 'Sum', { Reason: 'failed' });
    alarm(
      'ExportFailed',
      failedExports,
      0,
      'A dashboard CSV export failed after its first byte: the merchant received a file ending with # INCOMPLETE EXPORT.',
    );

    const graph = (title: string, left: IMetric[], right: IMetric[] = []) => new GraphWidget({ title, left, right, width: 12, height: 6 });
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: 'payment-gateway', defaultInterval: Duration.hours(3) });
    this.dashboard.addWidgets(
      new TextWidget({ markdown: '# Payment gateway\nAlarms and what to do: docs/operator-runbook.md', width: 24, height: 2 }),
      graph('Requests by route and status', [search(metricNames.requests, ['Route', 'StatusClass'], 'Sum', '')], [errorRate]),
      graph('Latency p99 by route (ms)', [search(metricNames.requestLatency, ['Route'], 'p99', '')]),
      graph(
        'Payments by type and outcome',
        [search(metricNames.payments, ['Type', 'Outcome'], 'Sum', '')],
        [search(metricNames.paymentAmount, ['Type', 'Outcome'], 'Sum', 'amount')],
      ),
      graph('Refunds and settlements by outcome', [
        search(metricNames.refunds, ['Outcome'], 'Sum', 'refunds'),
        search(metricNames.settlements, ['Outcome'], 'Sum', 'settlements'),
      ]),
      graph(
        'Provider calls: latency p99 (ms) and errors',
        [search(metricNames.providerLatency, ['Provider', 'Operation'], 'p99', '')],
        [search(metricNames.providerErrors, ['Provider', 'Operation'], 'Sum', 'errors')],
      ),
      graph(
        'Webhook attempts by outcome, dead letters',
        [search(metricNames.webhookAttempts, ['Outcome'], 'Sum', '')],
        [deadLetters, emf(metricNames.deadLetters, 'Sum')],
      ),
      graph('Commit-to-delivery latency (ms)', [emf(metricNames.commitToDelivery, 'p50'), emf(metricNames.commitToDelivery, 'p99')]),
      graph('Stream iterator age (ms), webhook backlog age (s)', [iteratorAge], [backlogAge]),
      graph('Due sweeper lag (s); payments left for the operator: unresolved cards, held approvals', [sweeperLag], [unresolvedCards, held]),
      graph(
        'CSV exports: duration of the whole download p99 (ms), incomplete files by reason',
        [search(metricNames.exportDuration, ['List'], 'p99', '')],
        [search(metricNames.exportsIncomplete, ['Reason'], 'Sum', 'incomplete')],
      ),
      graph(
        'Ledger: discrepancies and ledgers verified',
        [discrepancies],
        [search(metricNames.ledgersVerified, ['Scope'], 'Sum', 'verified')],
      ),
    );
  }
}
