import { Group, Paper, SimpleGrid, Skeleton, Text, Tooltip } from '@mantine/core';
import type { ReactNode } from 'react';

export interface Stat {
  label: string;
  value: ReactNode;
  hint?: string;
  color?: string;
}

/** A row of headline numbers. */
export function StatStrip({ stats, loading }: { stats: Stat[]; loading?: boolean }) {
  return (
    // Three to a row on a phone, with smaller figures, so the list below starts on the first screen.
    <SimpleGrid cols={{ base: 3, sm: 4, lg: stats.length }} spacing={{ base: 6, sm: 'sm' }}>
      {stats.map((stat) => (
        <Paper key={stat.label} withBorder px={{ base: 10, sm: 'sm' }} py={{ base: 6, sm: 'sm' }} radius="md">
          <Text size="xs" c="dimmed" tt="uppercase" fw={600} style={{ letterSpacing: '0.03em' }}>
            {stat.label}
          </Text>
          {loading ? (
            <Skeleton h={26} mt={6} w="60%" />
          ) : (
            <Tooltip label={stat.hint} disabled={!stat.hint}>
              <Group gap={4}>
                <Text
                  fz={{ base: 'md', sm: 'xl' }}
                  fw={650}
                  c={stat.color}
                  style={{ fontVariantNumeric: 'tabular-nums' }}
                  data-testid={`stat-${stat.label}`}
                >
                  {stat.value}
                </Text>
              </Group>
            </Tooltip>
          )}
        </Paper>
      ))}
    </SimpleGrid>
  );
}
