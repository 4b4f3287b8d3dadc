import { Group, Text } from '@mantine/core';

export function LogoMark({ size = 26 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true">
      <rect width="32" height="32" rx="7" fill="var(--mantine-color-indigo-6)" />
      <path d="M5 17c3-6 7-9 11-9s8 3 11 9c-3 5-7 8-11 8s-8-3-11-8z" fill="none" stroke="#fff" strokeWidth="2.4" />
      <circle cx="16" cy="16.5" r="3.6" fill="#fff" />
    </svg>
  );
}

export function Logo() {
  return (
    <Group gap={8} wrap="nowrap">
      <LogoMark />
      <Text fw={700} size="lg" style={{ letterSpacing: '-0.01em' }}>
        Sightline
      </Text>
    </Group>
  );
}
