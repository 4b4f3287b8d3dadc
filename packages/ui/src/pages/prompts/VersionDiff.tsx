/**
 * Two prompt versions side by side as a line diff (jsdiff), as Phoenix and Langfuse show them:
 * the model, every message of the template, the invocation parameters, tools and response
 * format, one block per line, removed lines red and added lines green.
 */
import { Box, Code, Paper, Stack, Text } from '@mantine/core';
import { diffLines } from 'diff';
import type { PromptVersion } from '../../lib/playground';

/** A version as the lines a diff compares. */
export function versionText(version: PromptVersion): string {
  const lines = [`model: ${version.model_provider.toLowerCase()}:${version.model_name}`, `format: ${version.template_format}`];
  if (version.template.type === 'chat') {
    for (const message of (version.template as { messages: { role: string; content: unknown }[] }).messages)
      lines.push(`[${message.role}]`, typeof message.content === 'string' ? message.content : JSON.stringify(message.content, null, 2));
  } else lines.push(String((version.template as { template?: unknown }).template ?? ''));
  lines.push(`invocation parameters: ${JSON.stringify(version.invocation_parameters, null, 2)}`);
  if (version.tools) lines.push(`tools: ${JSON.stringify(version.tools, null, 2)}`);
  if (version.response_format) lines.push(`response format: ${JSON.stringify(version.response_format, null, 2)}`);
  return `${lines.join('\n')}\n`;
}

export function VersionDiff({
  from,
  to,
  fromLabel,
  toLabel,
}: {
  from: PromptVersion;
  to: PromptVersion;
  fromLabel: string;
  toLabel: string;
}) {
  const parts = diffLines(versionText(from), versionText(to));
  return (
    <Paper withBorder radius="md" p="sm" data-testid="version-diff">
      <Stack gap={6}>
        <Text size="sm" fw={600}>
          {fromLabel} → {toLabel}
        </Text>
        <Code block p={0} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
          {parts.map((part, index) => (
            <Box
              // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one diff, in order, never reordered
              key={index}
              component="span"
              display="block"
              px={8}
              data-change={part.added ? 'added' : part.removed ? 'removed' : 'same'}
              bg={part.added ? 'var(--mantine-color-teal-light)' : part.removed ? 'var(--mantine-color-red-light)' : undefined}
            >
              {part.value
                .replace(/\n$/, '')
                .split('\n')
                .map((line) => `${part.added ? '+ ' : part.removed ? '- ' : '  '}${line}`)
                .join('\n')}
            </Box>
          ))}
        </Code>
      </Stack>
    </Paper>
  );
}
