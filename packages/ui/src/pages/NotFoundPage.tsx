import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';

export function NotFoundPage() {
  return (
    <Center mih={400}>
      <Stack align="center" gap="xs">
        <Title order={2}>Page not found</Title>
        <Text c="dimmed">There is nothing at this address.</Text>
        <Button component={Link} to="/projects" mt="sm">
          Go to projects
        </Button>
      </Stack>
    </Center>
  );
}
