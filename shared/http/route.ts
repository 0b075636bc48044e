import type { Scope } from '#shared/domain/scopes.ts';

/** What one row of the route table (functions/routes.ts) declares; the pipeline, the stack and the docs read it. */
export type HttpMethod = 'GET' | 'POST';

export interface Route {
  /** Stable id: the Lambda's logical name and the key handlers import their row by. */
  readonly id: string;
  readonly method: HttpMethod;
  /** API Gateway style template; `{version}` is validated by the pipeline. */
  readonly path: string;
  /** Handler module, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  /** `apiKey`: Svc-API-Key required; `none`: public (hosted checkout page). */
  readonly auth: 'apiKey' | 'none';
  /** Scope the key must carry. */
  readonly scope?: Scope;
  /** The body carries the MD5 `signature` field of CONTRACT §2 (`ifPresent`: checked only when the optional body carries one). */
  readonly signature: boolean | 'ifPresent';
  /** What the function may do: grants in AWS. */
  readonly permissions: { readonly table: 'read' | 'readWrite' };
  readonly summary: string;
}

/** Supported API versions: `/Gateway/v1/...`. Anything else is a 404 problem. */
export const supportedVersions = ['1'] as const;
