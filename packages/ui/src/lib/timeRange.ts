/** The time range of the explorer, kept in the URL (`?range=24h`) so that links and reloads keep it. */
import { useCallback } from 'react';
import { useSearchParams } from 'react-router';
import { useUpdateSearch } from './search';

export interface RangeOption {
  value: string;
  label: string;
  /** Length in milliseconds; null for all time. */
  ms: number | null;
}

const MINUTE = 60_000;
export const RANGE_OPTIONS: RangeOption[] = [
  { value: '15m', label: 'Last 15 minutes', ms: 15 * MINUTE },
  { value: '1h', label: 'Last hour', ms: 60 * MINUTE },
  { value: '6h', label: 'Last 6 hours', ms: 6 * 60 * MINUTE },
  { value: '24h', label: 'Last 24 hours', ms: 24 * 60 * MINUTE },
  { value: '7d', label: 'Last 7 days', ms: 7 * 24 * 60 * MINUTE },
  { value: '30d', label: 'Last 30 days', ms: 30 * 24 * 60 * MINUTE },
  { value: 'all', label: 'All time', ms: null },
];
export const DEFAULT_RANGE = '7d';

export interface ResolvedRange {
  /** ISO start (inclusive); undefined for all time. */
  start_time?: string;
  end_time?: string;
}

export function rangeOption(value: string | null): RangeOption {
  return RANGE_OPTIONS.find((option) => option.value === value) ?? RANGE_OPTIONS.find((option) => option.value === DEFAULT_RANGE)!;
}

/** The range's bounds as of now (call it inside a query function so that live refresh moves it). */
export function resolveRange(option: RangeOption, now = Date.now()): ResolvedRange {
  if (option.ms === null) return {};
  return { start_time: new Date(now - option.ms).toISOString() };
}

export function useTimeRange() {
  const [params] = useSearchParams();
  const update = useUpdateSearch();
  const option = rangeOption(params.get('range'));
  const setRange = useCallback(
    (value: string) =>
      update((next) => {
        if (value === DEFAULT_RANGE) next.delete('range');
        else next.set('range', value);
      }),
    [update],
  );
  return { option, setRange };
}

/** `?live=1`: queries of the page refetch every few seconds. */
export function useLiveRefresh() {
  const [params] = useSearchParams();
  const update = useUpdateSearch();
  const live = params.get('live') === '1';
  const setLive = useCallback(
    (on: boolean) =>
      update((next) => {
        if (on) next.set('live', '1');
        else next.delete('live');
      }),
    [update],
  );
  return { live, setLive, interval: live ? 5000 : (false as const) };
}
