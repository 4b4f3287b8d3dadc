/**
 * A project's saved views (docs/search.md, "Saved views"): the list's search, filter and sort
 * saved under a name for everyone on the project, and applied from a menu. The time range is
 * not part of a view: opening one keeps the range being looked at.
 */
import { useState } from 'react';
import { ActionIcon, Button, Group, Menu, Modal, Text, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconBookmark, IconTrash } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { call, client } from '../api/http';
import { useUpdateSearch } from '../lib/search';

export type ViewPage = 'traces' | 'spans' | 'sessions';

/** Address keys that are the time window or the page's state, not the view. */
const NOT_IN_VIEW = new Set(['range', 'live', 'span', 'start', 'end']);

function viewQuery(params: URLSearchParams): string {
  const kept = new URLSearchParams();
  for (const [key, value] of params) if (!NOT_IN_VIEW.has(key)) kept.append(key, value);
  return kept.toString();
}

export function SavedViews({ projectId, page }: { projectId: string; page: ViewPage }) {
  const [params] = useSearchParams();
  const update = useUpdateSearch();
  const queryClient = useQueryClient();
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const key = ['saved-views', projectId];
  const views = useQuery({
    queryKey: key,
    queryFn: ({ signal }) =>
      call(
        client.GET('/v1/projects/{project_identifier}/saved_views', {
          params: { path: { project_identifier: projectId }, query: { limit: 200 } },
          signal,
        }),
      ),
  });
  const save = useMutation({
    mutationFn: () =>
      call(
        client.POST('/v1/projects/{project_identifier}/saved_views', {
          params: { path: { project_identifier: projectId } },
          body: { name, page, query: viewQuery(params) },
        }),
      ),
    onSuccess: () => {
      setNaming(false);
      setName('');
      void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const remove = useMutation({
    mutationFn: (viewId: string) =>
      call(
        client.DELETE('/v1/projects/{project_identifier}/saved_views/{view_id}', {
          params: { path: { project_identifier: projectId, view_id: viewId } },
        }),
      ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: key }),
    onError: (error) => notifications.show({ color: 'red', title: 'The view was not deleted', message: error.message }),
  });

  const mine = (views.data?.data ?? []).filter((view) => view.page === page);
  const apply = (query: string) =>
    update((next) => {
      for (const existing of [...next.keys()]) if (!NOT_IN_VIEW.has(existing)) next.delete(existing);
      for (const [viewKey, value] of new URLSearchParams(query)) next.append(viewKey, value);
    });

  return (
    <>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <Button size="xs" variant="default" leftSection={<IconBookmark size={14} />} aria-label="Saved views">
            Views
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          {mine.length === 0 ? (
            <Text size="xs" c="dimmed" p={6} maw={240}>
              No saved views yet: search or filter, then save the view for everyone on this project.
            </Text>
          ) : null}
          {mine.map((view) => (
            <Menu.Item
              key={view.id}
              onClick={() => apply(view.query)}
              rightSection={
                <ActionIcon
                  size="xs"
                  variant="subtle"
                  color="gray"
                  aria-label={`Delete view ${view.name}`}
                  onClick={(event) => {
                    event.stopPropagation();
                    remove.mutate(view.id);
                  }}
                >
                  <IconTrash size={12} />
                </ActionIcon>
              }
            >
              {view.name}
            </Menu.Item>
          ))}
          <Menu.Divider />
          <Menu.Item onClick={() => setNaming(true)}>Save this view…</Menu.Item>
        </Menu.Dropdown>
      </Menu>
      <Modal opened={naming} onClose={() => setNaming(false)} title="Save this view" size="sm">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate();
          }}
        >
          <TextInput
            label="Name"
            description="Saving again under a name replaces that view."
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={save.error?.message}
            data-autofocus
            required
            maxLength={100}
          />
          <Group justify="flex-end" mt="md">
            <Button type="submit" loading={save.isPending} disabled={name.trim() === ''}>
              Save
            </Button>
          </Group>
        </form>
      </Modal>
    </>
  );
}
