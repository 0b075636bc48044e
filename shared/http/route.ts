import type { DashboardPermission } from '#shared/domain/dashboard-roles.ts';
import type { Scope } from '#shared/domain/scopes.ts';
import type { IndexFamily, PartitionFamily } from '#shared/store/keys.ts';
export type { IndexFamily, PartitionFamily };

/** What one row of the route table (functions/routes.ts) declares; the pipeline, the stack and the docs read it. */
export type HttpMethod = 'GET' | 'POST';

/**
 * Secrets a function reads (infra grants exactly these, GetSecretValue only; test/infra/code-grants.test.ts
 * checks each against what the function's bundled code reads): `masterKey` unseals merchants' secret
 * keys (body signatures) and webhook secrets; `publicPathsKey` derives the hosted forms' anti-CSRF
 * tokens and the provider-callback verification keys (shared/crypto/seal.ts publicPathsKey);
 * `totpKey` seals dashboard users' TOTP seeds (the functions that check codes); `liveProviders` is
 * the live provider credentials (`-c liveProvidersSecretArn`), for code that loads the live adapters
 * (shared/providers/live/boot-*.ts).
 */
export type SecretName = 'masterKey' | 'publicPathsKey' | 'totpKey' | 'liveProviders';

/** Lambdas that serve several rows (functions/routes.ts lambdaGroups): the merchant dashboard's areas (functions/dashboard/routes.ts). */
export type LambdaGroupId =
  | 'dashboardSignIn'
  | 'dashboardPayments'
  | 'dashboardRefunds'
  | 'dashboardLinks'
  | 'dashboardPayouts'
  | 'dashboardSettlements'
  | 'dashboardBalance'
  | 'dashboardExports'
  | 'dashboardDevelopers'
  | 'dashboardTeam';

/** A row of the route table without its docs: what a handler and the request pipeline read (functions/routes/). */
export interface RouteDefinition {
  /** Stable id: the Lambda's logical name and the key handlers import their row by. */
  readonly id: string;
  readonly method: HttpMethod;
  /** API Gateway style template; `{version}` is validated by the pipeline. */
  readonly path: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  /**
   * `apiKey`: Svc-API-Key required; `none`: public (hosted checkout page, dashboard sign-in);
   * `session`: a merchant dashboard session cookie (shared/http/dashboard.ts).
   */
  readonly auth: 'apiKey' | 'none' | 'session';
  /** Dashboard rows: the role permission the signed-in user needs (shared/domain/dashboard-roles.ts). */
  readonly permission?: DashboardPermission;
  /** Rows served by a shared Lambda (functions/routes.ts lambdaGroups); absent: the row has its own. */
  readonly lambda?: LambdaGroupId;
  /** Scope the key must carry. */
  readonly scope?: Scope;
  /**
   * The body carries the MD5 `signature` field of docs/merchant-guide.md, Signing a request body (`ifPresent`: checked only when the
   * optional body carries one).
   */
  readonly signature: boolean | 'ifPresent';
  /** Provider-facing rows: the raw body may also be a form post (JazzCash posts its pp_* fields form-encoded); it is not parsed. */
  readonly formBody?: true;
  /**
   * What the function may do: grants in AWS. `read`: item reads and queries; `readWrite`: also
   * conditional puts and updates (never Scan, DeleteItem or BatchWriteItem on a request path);
   * `none`: no table access. `secrets`: exactly the secrets it reads. `partitions` confines an
   * unauthenticated function to the partitions of those item families (IAM `dynamodb:LeadingKeys`;
   * prefixes in shared/store/keys.ts); `writePartitions` narrows its puts and updates to fewer
   * families (default: all of `partitions`). `conditionChecks`: its transactions hold ConditionCheck
   * items (dynamodb:ConditionCheckItem). `putsOnly`: a `readWrite` row that only creates items
   * (conditional puts), never updates one (no dynamodb:UpdateItem). `attributeUpdates`: a `read` row's one kind of write
   * (or a `readWrite` row's writes to items it does not own, of families its `writePartitions` leave out), UpdateItem
   * on items of those families only (dynamodb:LeadingKeys), naming no attribute but the key and
   * those (dynamodb:Attributes), returning nothing (a lookup that stores what it computed once, as
   * the key last-used statement records a key's use). `managesKeys`: the row creates, rolls or revokes API keys; no other
   * function's writes reach an API-key item (a readWrite row without `writePartitions` writes every family but the
   * apiKey and apiKeyId ones; a key's last use has its own narrow statement). Item reads (GetItem, also inside TransactGetItems) come
   * with any table access; `batchGets` adds BatchGetItem and `queries` Query, on the table, its
   * indexes or both: only what the function's code calls (test/infra/code-grants.test.ts checks the
   * actions and whether an index is queried; the rehearsal's observed calls, which of table and index).
   * `readPartitions` confines an authenticated function's item reads and table queries (GetItem, BatchGetItem, Query
   * on the table) to the partitions of those families (dynamodb:LeadingKeys): the families its code builds keys of,
   * which code-grants compares both ways. `indexPartitions`: the index partition families its index queries (GSI1-3) reach
   * (dynamodb:LeadingKeys is the index's partition key; shared/store/keys.ts indexPartitions), required with index queries
   * and compared both ways with its code's too.
   */
  readonly permissions: {
    readonly table: 'none' | 'read' | 'readWrite';
    readonly secrets: readonly SecretName[];
    readonly partitions?: readonly PartitionFamily[];
    readonly readPartitions?: readonly PartitionFamily[];
    readonly writePartitions?: readonly PartitionFamily[];
    readonly conditionChecks?: true;
    readonly putsOnly?: true;
    readonly managesKeys?: true;
    readonly attributeUpdates?: { readonly partitions: readonly PartitionFamily[]; readonly attributes: readonly string[] };
    readonly batchGets?: true;
    /** DeleteItem on its `writePartitions` (inside TransactWriteItems): a two-step request undoing its own first commit. */
    readonly deletes?: true;
    readonly queries?: 'table' | 'indexes' | 'tableAndIndexes';
    readonly indexPartitions?: readonly IndexFamily[];
  };
  /** Files the handler reads at run time, `source:name`: copied next to the Lambda bundle as `name`. */
  readonly assets?: readonly string[];
  /**
   * The response is streamed as it is written (the CSV exports): API Gateway's STREAM transfer mode, which
   * invokes the function with InvokeWithResponseStream, a function timeout of streamingTimeoutSeconds, and a
   * handler wrapped by awslambda.streamifyResponse (shared/http/dashboard-stream.ts). A Lambda streams or buffers,
   * so a group's rows all stream or none does.
   */
  readonly streaming?: true;
}

/**
 * How long a streamed response may run: the function's timeout and its integration's (API Gateway allows a
 * streamed response 15 minutes). The handler ends its body before (shared/services/csv-export.ts).
 */
export const streamingTimeoutSeconds = 900;

/** A row of the route table (functions/routes.ts): its definition, summary and OpenAPI operation (functions/route-docs.ts). */
export interface Route extends RouteDefinition {
  readonly summary: string;
  /** The OpenAPI operation (shared/openapi/document.ts builds docs/openapi.json from it). */
  readonly doc: RouteDoc;
}

/**
 * What the OpenAPI document says about a route beyond its request schemas (which come from the
 * handler's own zod schemas). The statuses the pipeline itself answers (401/403 for keys, 400 for
 * schemas, 413/415 for POST bodies, 409/422 for Idempotency-Key, 404 for unknown versions, 429,
 * 500) are added by the generator; `problems` lists the ones this route's own logic adds.
 */
export interface RouteDoc {
  readonly tag:
    | 'Payments'
    | 'Payouts'
    | 'Transactions'
    | 'Refunds'
    | 'Settlements'
    | 'Account'
    | 'Webhooks'
    | 'Hosted checkout'
    | 'Dashboard'
    | 'Providers'
    | 'Reference';
  /**
   * Success status and the name of its body schema in shared/openapi/responses.ts (`html` for pages, `static` for HTML, CSS and JS
   * files, `image` for an SVG or PNG image).
   */
  readonly success: { readonly status: 200 | 201 | 202; readonly schema: string };
  readonly problems?: readonly (400 | 401 | 403 | 404 | 409 | 410 | 422)[];
  /** A realistic request: path and query parameters, body without `signature` (added when signed). */
  readonly example?: {
    readonly path?: Readonly<Record<string, string>>;
    readonly query?: Readonly<Record<string, string>>;
    readonly body?: Readonly<Record<string, unknown>>;
  };
}

/** Supported API versions: `/Gateway/v1/...`. Anything else is a 404 problem. */
export const supportedVersions = ['1'] as const;
