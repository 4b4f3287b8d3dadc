/**
 * Encryption of stored provider keys (docs/playground.md): AES-256-GCM with a fresh 12-byte
 * nonce per value, under a key derived from SERVICE_SECRET with HKDF-SHA256, and the secret's
 * name bound as associated data so a ciphertext cannot be moved to another name.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export interface Sealed {
  ciphertext: string;
  nonce: string;
}

/** A sealer bound to SERVICE_SECRET. */
export function createSecretBox(serviceSecret: string) {
  const key = Buffer.from(hkdfSync('sha256', serviceSecret, 'sightline', 'sightline provider secrets v1', 32));
  return {
    seal(name: string, plaintext: string): Sealed {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(name, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return { ciphertext: body.toString('base64'), nonce: nonce.toString('base64') };
    },
    /** The plaintext, or null when the value does not open (another SERVICE_SECRET, or tampering). */
    open(name: string, sealed: Sealed): string | null {
      try {
        const body = Buffer.from(sealed.ciphertext, 'base64');
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.nonce, 'base64'));
        decipher.setAAD(Buffer.from(name, 'utf8'));
        decipher.setAuthTag(body.subarray(body.length - 16));
        return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}

export type SecretBox = ReturnType<typeof createSecretBox>;
