import { Badge, Group, Text, Tooltip } from '@mantine/core';
import { IconAlertTriangleFilled, IconCircleCheckFilled, IconCircleDashed } from '@tabler/icons-react';
import type { StatusCode } from '@sightline/client/browser';
import { spanKindColor } from '../lib/spanKinds';

export function KindBadge({ kind, size = 'sm' }: { kind: string; size?: 'xs' | 'sm' | 'md' }) {
  return (
    <Badge variant="light" color={spanKindColor(kind)} size={size} radius="sm" style={{ flexShrink: 0 }}>
      {kind}
    </Badge>
  );
}

export function StatusIcon({ status, message, size = 16 }: { status: StatusCode; message?: string; size?: number }) {
  const icon =
    status === 'ERROR' ? (
      <IconAlertTriangleFilled size={size} color="var(--mantine-color-red-6)" aria-label="error" />
    ) : status === 'OK' ? (
      <IconCircleCheckFilled size={size} color="var(--mantine-color-teal-6)" aria-label="ok" />
    ) : (
      <IconCircleDashed size={size} color="var(--mantine-color-gray-5)" aria-label="unset" />
    );
  return (
    <Tooltip label={message ? `${status}: ${message}` : status} withArrow>
      <span style={{ display: 'inline-flex' }}>{icon}</span>
    </Tooltip>
  );
}

export function StatusBadge({ status }: { status: StatusCode }) {
  const color = status === 'ERROR' ? 'red' : status === 'OK' ? 'teal' : 'gray';
  return (
    <Group gap={6} wrap="nowrap">
      <StatusIcon status={status} size={14} />
      <Text size="sm" c={status === 'ERROR' ? color : undefined}>
        {status === 'ERROR' ? 'Error' : status === 'OK' ? 'OK' : 'Unset'}
      </Text>
    </Group>
  );
}
