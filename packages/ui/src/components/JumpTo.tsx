/**
 * Ctrl+K: jump to a page, a project, a dataset or a prompt by name, or open a trace or a session
 * by the id pasted from a log line or a ticket (docs/ui.md, "Jump to"). Datasets and prompts are
 * read when the box opens, not with every page; an id is looked up when it is chosen.
 */
import { useState } from 'react';
import { Spotlight, type SpotlightActionData } from '@mantine/spotlight';
import { notifications } from '@mantine/notifications';
import { IconDatabase, IconNotes, IconRoute, IconMessages, IconSearch } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { call, client } from '../api/http';

const TRACE_ID = /^[0-9a-f]{32}$/i;

export function JumpTo({ actions }: { actions: SpotlightActionData[] }) {
  const navigate = useNavigate();
  const [opened, setOpened] = useState(false);
  const [query, setQuery] = useState('');
  const datasets = useQuery({
    queryKey: ['jump-to', 'datasets'],
    queryFn: ({ signal }) => call(client.GET('/v1/datasets', { params: { query: { limit: 100 } }, signal })),
    enabled: opened,
  });
  const prompts = useQuery({
    queryKey: ['jump-to', 'prompts'],
    queryFn: ({ signal }) => call(client.GET('/v1/prompts', { params: { query: { limit: 100 } }, signal })),
    enabled: opened,
  });

  const failed = (what: string) => (error: unknown) =>
    notifications.show({
      color: 'red',
      title: `No ${what} “${query.trim()}”`,
      message: error instanceof Error ? error.message : String(error),
    });

  const openTrace = async (traceId: string) => {
    try {
      const found = await call(client.GET('/v1/traces/{trace_identifier}', { params: { path: { trace_identifier: traceId } } }));
      navigate(`/projects/${encodeURIComponent(found.data.project_id)}/traces/${found.data.trace_id}`);
    } catch (error) {
      failed('trace')(error);
    }
  };
  const openSession = async (sessionId: string) => {
    try {
      const found = await call(client.GET('/v1/sessions/{session_identifier}', { params: { path: { session_identifier: sessionId } } }));
      navigate(`/projects/${encodeURIComponent(found.data.project_id)}/sessions/${encodeURIComponent(found.data.id)}`);
    } catch (error) {
      failed('session')(error);
    }
  };

  const typed = query.trim();
  const lookups: SpotlightActionData[] =
    typed === ''
      ? []
      : [
          ...(TRACE_ID.test(typed)
            ? [
                {
                  id: 'lookup-trace',
                  label: `Open trace ${typed.toLowerCase()}`,
                  description: 'Finds the project that holds it',
                  leftSection: <IconRoute size={18} />,
                  keywords: [typed],
                  onClick: () => void openTrace(typed),
                },
              ]
            : []),
          {
            id: 'lookup-session',
            label: `Open session ${typed}`,
            description: 'A session.id sent with the spans',
            leftSection: <IconMessages size={18} />,
            keywords: [typed],
            onClick: () => void openSession(typed),
          },
        ];
  const all: SpotlightActionData[] = [
    ...lookups,
    ...actions,
    ...(datasets.data?.data ?? []).map((dataset) => ({
      id: `dataset-${dataset.id}`,
      label: dataset.name,
      description: 'Dataset',
      leftSection: <IconDatabase size={18} />,
      onClick: () => navigate(`/datasets/${encodeURIComponent(dataset.id)}/examples`),
    })),
    ...(prompts.data?.data ?? []).map((prompt) => ({
      id: `prompt-${prompt.id}`,
      label: prompt.name,
      description: 'Prompt',
      leftSection: <IconNotes size={18} />,
      onClick: () => navigate(`/prompts/${encodeURIComponent(prompt.name)}`),
    })),
  ];

  return (
    <Spotlight
      actions={all}
      query={query}
      onQueryChange={setQuery}
      onSpotlightOpen={() => setOpened(true)}
      shortcut={['mod + K']}
      nothingFound="Nothing found"
      highlightQuery
      limit={14}
      searchProps={{ leftSection: <IconSearch size={18} />, placeholder: 'Jump to a project, dataset, prompt, trace id or session id…' }}
    />
  );
}
