/**
 * Route definitions (functions/routes.ts, the one route table, lists them with their docs):
 * Statements: a month's balance statement per currency (a closed month's final, the current month's provisional), as CSV and PDF.
 * The PDF row has its own Lambda, so the PDF writer (shared/services/pdf-writer.ts) stays out of the CSV bundle.
 * Both write the balance checkpoints a statement needs the first time (readWrite: conditional Puts of MERCHANT# items, nothing else).
 */
import type { RouteDefinition } from '#shared/http/route.ts';

export const statementCsv = {
  id: 'statementCsv',
  method: 'GET',
  path: '/Gateway/v{version}/Statements/{period}',
  handler: 'functions/statements/csv.ts',
  auth: 'apiKey',
  scope: 'read',
  signature: false,
  permissions: {
    readPartitions: ['apiKey', 'idempotency', 'merchant'],
    table: 'readWrite',
    secrets: [],
    queries: 'table',
    putsOnly: true,
    writePartitions: ['merchant'],
  },
} as const satisfies RouteDefinition;

export const statementPdf = {
  id: 'statementPdf',
  method: 'GET',
  path: '/Gateway/v{version}/Statements/{period}/pdf',
  handler: 'functions/statements/pdf.ts',
  auth: 'apiKey',
  scope: 'read',
  signature: false,
  permissions: {
    readPartitions: ['apiKey', 'idempotency', 'merchant'],
    table: 'readWrite',
    secrets: [],
    queries: 'table',
    putsOnly: true,
    writePartitions: ['merchant'],
  },
} as const satisfies RouteDefinition;
