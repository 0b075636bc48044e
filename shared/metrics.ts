import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { faultPoint } from './faults.ts';

/**
 * Operational metrics (CloudWatch embedded metric format, Powertools Metrics); X-Ray tracing of the
 * AWS SDK calls is shared/aws/tracing.ts.
 * `metricNames` is the one list of names and dimensions: the code emits them here and the stack's
 * dashboard and alarms (infra/observability.ts) read them, so the two cannot drift. Every data
 * point is flushed at once as its own EMF line (a single-metric instance), so a handler that
 * throws loses none. Outside Lambda (tests, `npm start`) metrics are off unless
 * POWERTOOLS_METRICS_DISABLED=false. docs/operator-runbook.md says what each one means.
 */
export const metricsNamespace = 'PaymentGateway';
export const serviceName = 'payment-gateway';

export const metricNames = {
  /** Route, StatusClass (2xx/4xx/5xx): every HTTP request. */
  requests: 'Requests',
  /** Route: milliseconds from the request to its response (p99 alarm per route). */
  requestLatency: 'RequestLatency',
  /** Type (checkout/deposit/withdrawal), Outcome (Completed/Failed/Cancelled/Expired): terminal payments. */
  payments: 'Payments',
  /** Type, Outcome: the amounts (minor units) of those payments. */
  paymentAmount: 'PaymentAmount',
  /** Outcome: refunds reaching a final status. */
  refunds: 'Refunds',
  /** Outcome: settlements reaching a final status. */
  settlements: 'Settlements',
  /** Provider, Operation: provider call latency (ms) and failed calls. */
  providerLatency: 'ProviderLatency',
  providerErrors: 'ProviderErrors',
  /** Outcome (delivered/retry/dead_letter): webhook delivery attempts. */
  webhookAttempts: 'WebhookAttempts',
  /** ms from an event's commit to its successful delivery. */
  commitToDelivery: 'CommitToDeliveryLatency',
  /** Webhook events moved to the dead-letter queue. */
  deadLetters: 'WebhookDeadLetters',
  /** seconds between the oldest due item's due time and the sweep that found it. */
  dueSweeperLag: 'DueSweeperLagSeconds',
  /** Scope (full/incremental): discrepancies found by the ledger verifier. */
  ledgerDiscrepancies: 'LedgerDiscrepancies',
  /** Scope: ledgers (merchant × mode) the verifier read. */
  ledgersVerified: 'LedgersVerified',
  /**
   * Reason (failed/size/time): a streamed CSV export that ended with its `# INCOMPLETE EXPORT` line (shared/services/csv-export.ts);
   * failed: a read failed after the first byte had gone out (the ExportFailed alarm), size/time: the platform's bounds.
   */
  exportsIncomplete: 'ExportsIncomplete',
  /**
   * List: ms a streamed CSV export took from its start to its last byte (the whole download). A streamed row's
   * RequestLatency is the time to its first byte (the status and headers), when the handler hands the stream over.
   */
  exportDuration: 'ExportDuration',
  /** A live card payment whose outcome the provider has not told within the cap: left for the operator. */
  cardOutcomeUnresolved: 'CardOutcomeUnresolved',
  /**
   * Method (card/wallet): a payment approved or captured while its merchant was suspended, held for the operator's
   * release or decline (shared/services/held-approvals.ts; the ApprovalHeld alarm): the customer has paid, the merchant is
   * not credited, and nothing moves until an operator decides.
   */
  approvalsHeld: 'ApprovalsHeld',
} as const;

const inLambda = Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);
if (!inLambda && process.env.POWERTOOLS_METRICS_DISABLED === undefined) process.env.POWERTOOLS_METRICS_DISABLED = 'true';

export const metrics = new Metrics({ namespace: metricsNamespace, serviceName });

export type MetricName = (typeof metricNames)[keyof typeof metricNames];

/** Emit one data point with its dimensions, flushed at once. */
export function emitMetric(
  name: MetricName,
  value: number,
  dimensions: Record<string, string> = {},
  unit: (typeof MetricUnit)[keyof typeof MetricUnit] = MetricUnit.Count,
): void {
  try {
    const single = metrics.singleMetric();
    if (Object.keys(dimensions).length) single.addDimensions(dimensions);
    single.addMetric(name, unit, value);
  } catch {
    // A metric must never fail the money path it observes.
  }
}

/** One data point for emitMetrics. */
export interface MetricPoint {
  name: MetricName;
  value: number;
  dimensions?: Record<string, string>;
  unit?: (typeof MetricUnit)[keyof typeof MetricUnit];
}

/**
 * Several data points at once (a dispatcher batch): one EMF line per dimension set, a name's values
 * as an array (EMF allows 100; Powertools starts a new line beyond). CloudWatch counts each value of
 * the array as a sample, so Sum, SampleCount and percentiles are those of one line per point, for
 * one Metrics instance per dimension set instead of one per point.
 */
export function emitMetrics(points: readonly MetricPoint[]): void {
  try {
    const groups = new Map<string, MetricPoint[]>();
    for (const p of points) {
      const key = JSON.stringify(Object.entries(p.dimensions ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)));
      const group = groups.get(key);
      if (group) group.push(p);
      else groups.set(key, [p]);
    }
    for (const group of groups.values()) {
      const batch = new Metrics({ namespace: metricsNamespace, serviceName });
      const dimensions = group[0]!.dimensions ?? {};
      if (Object.keys(dimensions).length) batch.addDimensions(dimensions);
      for (const p of group) batch.addMetric(p.name, p.unit ?? MetricUnit.Count, p.value);
      batch.publishStoredMetrics();
    }
  } catch {
    // A metric must never fail the money path it observes.
  }
}

export { MetricUnit };

/**
 * A payment (Type checkout/deposit/withdrawal = payout), refund or settlement reached a final
 * status: a count by outcome, and for payments also the amount (minor units) by Type and Outcome.
 */
export function emitOutcome(kind: 'payment' | 'refund' | 'settlement', outcome: string, amountMinor: number, type?: string): void {
  if (kind === 'payment') {
    const dimensions = { Type: type ?? 'unknown', Outcome: outcome };
    emitMetric(metricNames.payments, 1, dimensions);
    emitMetric(metricNames.paymentAmount, amountMinor, dimensions, MetricUnit.NoUnit);
  } else {
    emitMetric(kind === 'refund' ? metricNames.refunds : metricNames.settlements, 1, { Outcome: outcome });
  }
}

/**
 * A provider adapter whose asynchronous methods are timed (ProviderLatency, ProviderErrors with
 * dimensions Provider = `family`, Operation = the method). The provider layer returns adapters
 * through this, so every call site is covered without touching it.
 */
export function instrumented<T extends object>(family: string, adapter: T): T;
export function instrumented<T extends object>(family: string, adapter: T | undefined): T | undefined;
export function instrumented<T extends object>(family: string, adapter: T | undefined): T | undefined {
  if (!adapter) return adapter;
  return new Proxy(adapter, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        const started = Date.now();
        const dimensions = { Provider: family, Operation: property };
        let result: unknown;
        try {
          faultPoint(`provider:${family}.${property}`);
          result = value.apply(target, args);
        } catch (error) {
          emitMetric(metricNames.providerErrors, 1, dimensions);
          throw error;
        }
        if (!(result instanceof Promise)) return result;
        return result.then(
          (ok) => {
            emitMetric(metricNames.providerLatency, Date.now() - started, dimensions, MetricUnit.Milliseconds);
            faultPoint(`provider-done:${family}.${property}`);
            return ok;
          },
          (error: unknown) => {
            emitMetric(metricNames.providerLatency, Date.now() - started, dimensions, MetricUnit.Milliseconds);
            emitMetric(metricNames.providerErrors, 1, dimensions);
            throw error;
          },
        );
      };
    },
  });
}
