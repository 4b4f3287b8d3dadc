/**
 * Search and filter of the traces and spans tables (docs/search.md): a full-text search box
 * (the words of inputs, outputs and messages) and the filter editor, both kept in the address
 * (`q`, `filter`) so a search can be shared or bookmarked. The list's 422 is shown under the
 * input it came from.
 */
import { type ReactNode, useEffect, useState } from 'react';
import { Box, Highlight, Group, TextInput, Text } from '@mantine/core';
import { IconSearch } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { call, client } from '../api/http';
import { useUpdateSearch } from '../lib/search';
import { ConditionInput } from './ConditionInput';
import { SavedViews, type ViewPage } from './SavedViews';

/** The search words and filter condition of the page's address. */
export function useTextFilters(): { search: string; filter: string } {
  const [params] = useSearchParams();
  return { search: params.get('q') ?? '', filter: params.get('filter') ?? '' };
}

/**
 * A user.id to look up, kept in the address (`user`) and applied once the typist pauses: the
 * traces and sessions of one user who reported a problem.
 */
export function UserLookup({ label = 'User id' }: { label?: string }) {
  const [params] = useSearchParams();
  const update = useUpdateSearch();
  const current = params.get('user') ?? '';
  const [text, setText] = useState(current);
  useEffect(() => setText(current), [current]);
  useEffect(() => {
    if (text.trim() === current) return;
    const timer = setTimeout(() => update((next) => (text.trim() ? next.set('user', text.trim()) : next.delete('user'))), 400);
    return () => clearTimeout(timer);
  }, [text, current, update]);
  return (
    <TextInput
      label={label}
      aria-label="Only this user.id"
      placeholder="user.id"
      value={text}
      onChange={(event) => setText(event.currentTarget.value)}
      w={{ base: '100%', sm: 200 }}
    />
  );
}

/** The words to mark in previews: the search's terms without quotes and stars. */
export function highlightWords(search: string): string[] {
  return search
    .split(/\s+/)
    .map((word) => word.replace(/["*]/g, ''))
    .filter((word) => word.length > 0);
}

function useAttributeKeys(projectId: string) {
  return useQuery({
    queryKey: ['span-attribute-keys', projectId],
    queryFn: ({ signal }) =>
      call(
        client.GET('/v1/projects/{project_identifier}/span_attribute_keys', {
          params: { path: { project_identifier: projectId } },
          signal,
        }),
      ),
    staleTime: 60_000,
  });
}

export interface QueryBarProps {
  /** Extra inputs beside the search and filter (a user id lookup). */
  extra?: ReactNode;
  projectId: string;
  /** The list the bar filters, for its saved views. */
  page: ViewPage;
  annotationNames: string[];
  /** The list's error, when it has one: a 422 about the search or the filter is shown under it. */
  error: Error | null;
}

export function QueryBar({ projectId, page, annotationNames, error, extra }: QueryBarProps) {
  const { search, filter } = useTextFilters();
  const update = useUpdateSearch();
  const keys = useAttributeKeys(projectId);
  const [text, setText] = useState(search);
  useEffect(() => setText(search), [search]);
  // Typing searches once the typist pauses, not on every key.
  useEffect(() => {
    if (text.trim() === search) return;
    const timer = setTimeout(() => update((next) => (text.trim() ? next.set('q', text.trim()) : next.delete('q'))), 400);
    return () => clearTimeout(timer);
  }, [text, search, update]);
  const message = error?.message ?? '';
  const searchError = /search text/.test(message) ? message : null;
  const filterError = !searchError && /span query|condition/.test(message) ? message : null;
  return (
    <Group gap="sm" align="flex-start" wrap="wrap" role="search" aria-label="Search and filter">
      <TextInput
        label="Search"
        aria-label="Search inputs, outputs and messages"
        placeholder='Words in inputs, outputs, messages ("phrase", prefix*)'
        leftSection={<IconSearch size={14} />}
        value={text}
        onChange={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') update((next) => (text.trim() ? next.set('q', text.trim()) : next.delete('q')));
        }}
        error={searchError}
        w={{ base: '100%', sm: 320 }}
      />
      <ConditionInput
        value={filter}
        onApply={(value) => update((next) => (value ? next.set('filter', value) : next.delete('filter')))}
        attributeKeys={keys.data?.data ?? []}
        annotationNames={annotationNames}
        error={filterError}
        w={{ base: '100%', sm: 480 }}
      />
      {extra}
      <Box pt={{ base: 0, sm: 25 }}>
        <SavedViews projectId={projectId} page={page} />
      </Box>
    </Group>
  );
}

/** A one-line preview with the search's words marked. */
export function Preview({ text, words }: { text: string | null | undefined; words: string[] }) {
  if (!text)
    return (
      <Text span c="dimmed" size="sm">
        —
      </Text>
    );
  const line = text.replace(/\s+/g, ' ').trim();
  return (
    <Highlight size="sm" c="dimmed" truncate title={line.length > 80 ? line : undefined} highlight={words}>
      {line}
    </Highlight>
  );
}
