/** React Query hooks of the prompts and their versions. */
import { useQuery } from '@tanstack/react-query';
import { call, client } from '../../api/http';
import { allPages } from '../../api/paging';
import type { PromptSummary as Prompt, PromptVersion } from '../../lib/playground';

export const promptsKey = ['prompts'] as const;

/** Every prompt, newest first (follows next_cursor). */
export function usePrompts() {
  return useQuery({
    queryKey: promptsKey,
    queryFn: ({ signal }) =>
      allPages<Prompt>((cursor) => call(client.GET('/v1/prompts', { params: { query: { limit: 1000, cursor } }, signal }))),
    staleTime: 0,
  });
}

/** A prompt's versions, newest first. */
export function usePromptVersions(promptName: string) {
  return useQuery({
    queryKey: ['prompt-versions', promptName],
    queryFn: ({ signal }) =>
      allPages<PromptVersion>((cursor) =>
        call(
          client.GET('/v1/prompts/{prompt_identifier}/versions', {
            params: { path: { prompt_identifier: promptName }, query: { limit: 1000, cursor } },
            signal,
          }),
        ),
      ),
    staleTime: 0,
  });
}

/** The tags naming one version (a tag names one version of its prompt at a time). */
export function useVersionTags(promptName: string, versionId: string) {
  return useQuery({
    queryKey: ['prompt-tags', promptName, versionId],
    queryFn: ({ signal }) =>
      allPages<{ id: string; name: string; description: string | null }>((cursor) =>
        call(
          client.GET('/v1/prompt_versions/{prompt_version_id}/tags', {
            params: { path: { prompt_version_id: versionId }, query: { limit: 100, cursor } },
            signal,
          }),
        ),
      ),
  });
}
