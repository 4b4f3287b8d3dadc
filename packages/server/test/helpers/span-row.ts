/** Span rows as the writers take them, for tests that write without going through ingest. */
import type { SpanRow } from '../../src/span-model/span-rows.js';

/** A row of an UNSET root span with empty attributes and no tokens, session or user; `overrides` sets the rest. */
export function spanRow(overrides: Partial<SpanRow> & Pick<SpanRow, 'traceId' | 'spanId'>): SpanRow {
  return {
    projectName: 'default',
    parentId: null,
    name: 'span',
    spanKind: 'UNKNOWN',
    startTime: 0n,
    endTime: 0n,
    statusCode: 'UNSET',
    statusMessage: '',
    attributes: '{}',
    longAttributes: null,
    events: '[]',
    tokenCountPrompt: null,
    tokenCountCompletion: null,
    tokenCountTotal: null,
    searchText: null,
    sessionId: null,
    userKey: null,
    ...overrides,
  };
}
