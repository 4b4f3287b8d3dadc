/**
 * A prompt version's tags (docs/prompts.md, "Tags"), as Phoenix shows them: badges that can be
 * removed, and a field that sets a tag on this version (moving it from the version it named).
 */
import { useState } from 'react';
import { ActionIcon, Badge, Group, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconTag, IconX } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call, client } from '../../api/http';
import { useVersionTags } from './queries';

export function VersionTags({ promptName, versionId, label }: { promptName: string; versionId: string; label: string }) {
  const tags = useVersionTags(promptName, versionId);
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  // A tag moved here leaves another version: every version's tags of the prompt are read again.
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['prompt-tags', promptName] });
  const add = useMutation({
    mutationFn: (tag: string) =>
      call(
        client.POST('/v1/prompt_versions/{prompt_version_id}/tags', {
          params: { path: { prompt_version_id: versionId } },
          body: { name: tag },
        }),
      ),
    onSuccess: () => {
      setName('');
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (tag: string) =>
      call(
        client.DELETE('/v1/prompt_versions/{prompt_version_id}/tags/{tag_name}', {
          params: { path: { prompt_version_id: versionId, tag_name: tag } },
        }),
      ),
    onSuccess: refresh,
    onError: (error) => notifications.show({ color: 'red', title: 'The tag was not removed', message: error.message }),
  });
  return (
    <Group gap={6} mt={6} wrap="wrap" align="flex-start">
      {(tags.data ?? []).map((tag) => (
        <Badge
          key={tag.id}
          size="sm"
          variant="light"
          color="grape"
          leftSection={<IconTag size={10} />}
          rightSection={
            <ActionIcon
              size={14}
              variant="transparent"
              color="grape"
              aria-label={`Remove tag ${tag.name} from ${label}`}
              onClick={() => remove.mutate(tag.name)}
            >
              <IconX size={10} />
            </ActionIcon>
          }
        >
          {tag.name}
        </Badge>
      ))}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (name.trim()) add.mutate(name.trim());
        }}
      >
        <TextInput
          size="xs"
          w={130}
          placeholder="Add tag, Enter"
          aria-label={`Add a tag to ${label}`}
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={add.error?.message}
        />
      </form>
    </Group>
  );
}
