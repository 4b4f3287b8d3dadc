/**
 * `/prompts` (every stored prompt) and `/prompts/:promptName` (its versions, newest first, each
 * with "Open in playground"). Prompts are made in the playground ("Save as prompt") or with
 * phoenix-client's createPrompt (docs/prompts.md).
 */
import { VersionTags } from './VersionTags';
import { Link, useNavigate, useParams } from 'react-router';
import { Alert, Anchor, Badge, Breadcrumbs, Button, Code, Group, Paper, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
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

export function PromptVersionsPage() {
  const { promptName = '' } = useParams();
  usePageTitle(`Prompt ${promptName}`);
  const versions = usePromptVersions(promptName);
  const navigate = useNavigate();
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
      <Title order={2}>{promptName}</Title>
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
                    <Text size="xs" ff="monospace" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} lineClamp={6}>
                      {templatePreview(version)}
                    </Text>
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
    </Stack>
  );
}
