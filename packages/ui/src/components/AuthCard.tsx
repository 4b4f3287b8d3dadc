import { Box, Center, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { LogoMark } from './Logo';
import { ThemeToggle } from './ThemeToggle';

/** The centred card of the login, password and reset pages. */
export function AuthCard({ title, subtitle, children }: { title: string; subtitle?: ReactNode; children: ReactNode }) {
  return (
    <Box mih="100vh" bg="var(--sl-muted-bg)" pos="relative">
      <Box pos="absolute" top={16} right={16}>
        <ThemeToggle />
      </Box>
      <Center mih="100vh" p="md">
        <Stack w="100%" maw={420} gap="lg">
          <Stack align="center" gap={6}>
            <LogoMark size={44} />
            <Title order={2} ta="center">
              {title}
            </Title>
            {subtitle ? (
              <Text c="dimmed" size="sm" ta="center">
                {subtitle}
              </Text>
            ) : null}
          </Stack>
          <Paper withBorder shadow="sm" p="xl" radius="lg">
            {children}
          </Paper>
        </Stack>
      </Center>
    </Box>
  );
}
