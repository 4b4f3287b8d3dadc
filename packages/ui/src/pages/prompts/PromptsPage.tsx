/**
 * `/prompts` (every stored prompt) and `/prompts/:promptName` (its versions, newest first, each
 * with "Open in playground"). Prompts are made in the playground ("Save as prompt") or with
 * phoenix-client's createPrompt (docs/prompts.md).
 */
import { DeleteButton } from '../../components/DeleteButton';
import { call, client } from '../../api/http';
import { useQueryClient } from '@tanstack/react-query';
import { VersionTags } from './VersionTags';
import { Link, useNavigate, useParams } from 'react-router';
import {
  Alert,
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Checkbox,
  Code,
  Group,
  Paper,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { VersionDiff } from './VersionDiff';
import { IconInfoCircle, IconPlayerPlay } from '@tabler/icons-react';
import { usePrompts, usePromptVersions } from './queries';
import { formatDateTime, formatRelative } from '../../lib/format';
import { draftFromPromptVersion, type PromptVersion } from '../../lib/playground';
import type { PlaygroundLocationState } from '../playground/PlaygroundPage';
import { usePageTitle } from '../../lib/pageTitle';

/** The page of a prompt's versions. */
export function promptPath(promptName: string): string {
  return `/prompts/${encodeURIComponent(promptName)}`;
}

export function PromptsPage() {
  usePageTitle('Prompts');
  const prompts = usePrompts();
  return (
    <Stack gap="md">
      <Title order={2}>Prompts</Title>
      {prompts.isError ? (
        <Alert color="red" title="Could not load the prompts">
          {prompts.error.message}
        </Alert>
      ) : prompts.isPending ? (
        <Skeleton height={160} />
      ) : prompts.data.length === 0 ? (
        <Alert icon={<IconInfoCircle />} title="No prompts yet">
          Save one from the{' '}
          <Anchor component={Link} to="/playground">
            playground
          </Anchor>
          , or create one with <Code>createPrompt</Code> of @arizeai/phoenix-client.
        </Alert>
      ) : (
        <Paper withBorder radius="md">
          <Table highlightOnHover aria-label="Prompts">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Description</Table.Th>
                <Table.Th>Updated</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {prompts.data.map((prompt) => (
                <Table.Tr key={prompt.id} data-testid="prompt-row">
                  <Table.Td>
                    <Anchor component={Link} to={promptPath(prompt.name)} fw={500}>
                      {prompt.name}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" lineClamp={1}>
                      {prompt.description ?? ''}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" c="dimmed" title={prompt.updated_at}>
                      {formatRelative(prompt.updated_at)}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Paper>
      )}
    </Stack>
  );
}

/** The first lines of a version's template, for the versions table. */
function templatePreview(version: PromptVersion): string {
  if (version.template.type !== 'chat') return String((version.template as { template?: unknown }).template ?? '');
  const messages = (version.template as { messages: { role: string; content: unknown }[] }).messages;
  return messages
    .map((message) => `${message.role}: ${typeof message.content === 'string' ? message.content : JSON.stringify(message.content)}`)
    .join('\n');
}

/** The diff of the two picked versions, older to newer (the table lists newest first). */
function PickedDiff({ versions, picked }: { versions: PromptVersion[]; picked: string[] }) {
  if (picked.length === 1)
    return (
      <Text size="sm" c="dimmed">
        Pick one more version to see what changed.
      </Text>
    );
  const positions = picked.map((id) => versions.findIndex((version) => version.id === id)).filter((index) => index >= 0);
  if (positions.length !== 2) return null;
  const [older, newer] = positions.sort((a, b) => b - a) as [number, number];
  const label = (index: number) => `version ${versions.length - index}`;
  return <VersionDiff from={versions[older]!} to={versions[newer]!} fromLabel={label(older)} toLabel={label(newer)} />;
}

export function PromptVersionsPage() {
  const { promptName = '' } = useParams();
  usePageTitle(`Prompt ${promptName}`);
  const versions = usePromptVersions(promptName);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // Two versions picked for the diff, oldest first whatever order they were picked in.
  const [picked, setPicked] = useState<string[]>([]);
  const [details, setDetails] = useState<string | null>(null);
  const pick = (id: string, on: boolean) =>
    setPicked((current) => (on ? [...current.filter((item) => item !== id), id].slice(-2) : current.filter((item) => item !== id)));
  const open = (version: PromptVersion) => {
    const state: PlaygroundLocationState = { draft: draftFromPromptVersion(version, promptName) };
    navigate('/playground', { state });
  };
  return (
    <Stack gap="md">
      <Breadcrumbs>
        <Anchor component={Link} to="/prompts">
          Prompts
        </Anchor>
        <Text>{promptName}</Text>
      </Breadcrumbs>
      <Group gap={6}>
        <Title order={2}>{promptName}</Title>
        <DeleteButton
          what={`prompt "${promptName}"`}
          consequence="All its versions and tags go with it."
          onDelete={() => call(client.DELETE('/v1/prompts/{prompt_identifier}', { params: { path: { prompt_identifier: promptName } } }))}
          onDeleted={() => {
            void queryClient.invalidateQueries({ queryKey: ['prompts'] });
            navigate('/prompts');
          }}
        />
      </Group>
      {versions.isError ? (
        <Alert color="red" title="Could not load the versions">
          {versions.error.message}
        </Alert>
      ) : versions.isPending ? (
        <Skeleton height={160} />
      ) : (
        <Paper withBorder radius="md">
          <Table aria-label="Prompt versions" verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Version</Table.Th>
                <Table.Th>Model</Table.Th>
                <Table.Th>Template</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {versions.data.map((version, index) => (
                <Table.Tr key={version.id} data-testid="prompt-version-row">
                  <Table.Td style={{ verticalAlign: 'top' }}>
                    <Group gap={6}>
                      <Text size="sm" fw={500} title={version.id}>
                        #{versions.data.length - index}
                      </Text>
                      {index === 0 ? (
                        <Badge size="xs" variant="light">
                          latest
                        </Badge>
                      ) : null}
                    </Group>
                    <Text size="xs" c="dimmed" title={formatDateTime(version.created_at)}>
                      {formatRelative(version.created_at)}
                    </Text>
                    {version.description ? <Text size="xs">{version.description}</Text> : null}
                    <VersionTags promptName={promptName} versionId={version.id} label={`version ${versions.data.length - index}`} />
                    <Group gap={6} mt={6}>
                      <Checkbox
                        size="xs"
                        label="Diff"
                        aria-label={`Pick version ${versions.data.length - index} for a diff`}
                        checked={picked.includes(version.id)}
                        onChange={(event) => pick(version.id, event.currentTarget.checked)}
                      />
                      <Anchor size="xs" component="button" onClick={() => setDetails(details === version.id ? null : version.id)}>
                        {details === version.id ? 'Hide details' : 'Details'}
                      </Anchor>
                    </Group>
                  </Table.Td>
                  <Table.Td style={{ verticalAlign: 'top' }}>
                    <Text size="sm" ff="monospace">
                      {version.model_provider.toLowerCase()}:{version.model_name}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {version.template_format}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text
                      size="xs"
                      ff="monospace"
                      style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}
                      lineClamp={details === version.id ? undefined : 6}
                    >
                      {templatePreview(version)}
                    </Text>
                    {details === version.id ? (
                      <Code block mt={6} data-testid="version-details" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                        {JSON.stringify(
                          {
                            invocation_parameters: version.invocation_parameters,
                            tools: version.tools,
                            response_format: version.response_format,
                          },
                          null,
                          2,
                        )}
                      </Code>
                    ) : null}
                  </Table.Td>
                  <Table.Td style={{ verticalAlign: 'top' }}>
                    <Button
                      size="xs"
                      variant="default"
                      leftSection={<IconPlayerPlay size={14} />}
                      onClick={() => open(version)}
                      aria-label={`Open version ${versions.data.length - index} in playground`}
                    >
                      Open in playground
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Paper>
      )}
      {versions.data ? <PickedDiff versions={versions.data} picked={picked} /> : null}
    </Stack>
  );
}
