/**
 * The browser tab's title: the page's subject first, then Sightline, so that several tabs of the
 * app can be told apart (issue "What a demanding user hits": most tabs read just "Sightline").
 */
import { useEffect } from 'react';

export function usePageTitle(subject: string | null | undefined): void {
  useEffect(() => {
    document.title = subject ? `${subject} · Sightline` : 'Sightline';
    return () => {
      document.title = 'Sightline';
    };
  }, [subject]);
}
