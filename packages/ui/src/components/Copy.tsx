import { ActionIcon, CopyButton, Group, Code, Tooltip, Text } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

/** A small copy-to-clipboard icon button with a tooltip. */
export function CopyIcon({ value, label = 'Copy' }: { value: string; label?: string }) {
  return (
    <CopyButton value={value} timeout={1500}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? 'Copied' : label} withArrow>
          <ActionIcon
            variant="subtle"
            color={copied ? 'teal' : 'gray'}
            size="sm"
            onClick={(event) => {
              event.stopPropagation();
              copy();
            }}
            aria-label={label}
          >
            {copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
}

/** An id in monospace with a copy button. */
export function CopyableId({ value, label, display }: { value: string; label: string; display?: string }) {
  return (
    <Group gap={4} wrap="nowrap">
      <Text ff="monospace" size="xs" title={value} truncate>
        {display ?? value}
      </Text>
      <CopyIcon value={value} label={label} />
    </Group>
  );
}

/** A secret shown once (a new API key): a code block and a labelled copy button. */
export function SecretBox({ value, label }: { value: string; label: string }) {
  return (
    <Group gap="xs" wrap="nowrap" align="center">
      <Code block style={{ flex: 1, wordBreak: 'break-all', whiteSpace: 'pre-wrap' }} data-testid="secret-value">
        {value}
      </Code>
      <CopyButton value={value} timeout={2000}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : label} withArrow>
            <ActionIcon variant="light" size="lg" color={copied ? 'teal' : undefined} onClick={copy} aria-label={label}>
              {copied ? <IconCheck size={18} /> : <IconCopy size={18} />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}
