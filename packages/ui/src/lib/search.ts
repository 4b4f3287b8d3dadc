import { useCallback } from 'react';
import { useSearchParams } from 'react-router';

/**
 * Changes the page's query string (filters, range, tab…) in place. Starts from the address bar's
 * current query rather than the last render's, so that quick successive changes (clear the
 * filters, then type a new one) compose instead of overwriting each other.
 */
export function useUpdateSearch() {
  const [, setParams] = useSearchParams();
  return useCallback(
    (change: (params: URLSearchParams) => void) => {
      const next = new URLSearchParams(window.location.search);
      change(next);
      setParams(next, { replace: true });
    },
    [setParams],
  );
}
