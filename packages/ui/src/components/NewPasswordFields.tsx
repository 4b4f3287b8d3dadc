import { PasswordInput, Stack } from '@mantine/core';
import { passwordProblem } from '../lib/passwords';

export interface NewPasswordValue {
  password: string;
  confirm: string;
}

/** The problem with a new password and its confirmation, or null when both are fine. */
export function newPasswordProblem(value: NewPasswordValue): string | null {
  return passwordProblem(value.password) ?? (value.password !== value.confirm ? 'The two passwords differ' : null);
}

/** "New password" and "Confirm new password", with the policy shown as the user types. */
export function NewPasswordFields({
  value,
  onChange,
  autoFocus,
}: {
  value: NewPasswordValue;
  onChange: (value: NewPasswordValue) => void;
  autoFocus?: boolean;
}) {
  const problem = value.password ? passwordProblem(value.password) : null;
  const mismatch = value.confirm && value.password !== value.confirm ? 'The two passwords differ' : null;
  return (
    <Stack gap="sm">
      <PasswordInput
        label="New password"
        description="8 to 256 characters"
        autoComplete="new-password"
        value={value.password}
        onChange={(event) => onChange({ ...value, password: event.currentTarget.value })}
        error={problem}
        required
        autoFocus={autoFocus}
      />
      <PasswordInput
        label="Confirm new password"
        autoComplete="new-password"
        value={value.confirm}
        onChange={(event) => onChange({ ...value, confirm: event.currentTarget.value })}
        error={mismatch}
        required
      />
    </Stack>
  );
}
